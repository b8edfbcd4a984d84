package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const (
	goTPCVersion                               = "v1.0.12"
	tpccLoadWarehouses, tpccLoadThreads        = 10, 4
	tpccRunWarehouses, tpccRunThreads, tpccPre = 4, 8, 4
)

// tpcc measures dbarena's TPC-C-like workload against go-tpc: loading 10
// warehouses, and running 4 warehouses with 8 threads.
func tpcc(ctx context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("tpcc", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var o options
	o.register(fs, 7, 60*time.Second, 10*time.Second)
	loadRounds := fs.Int("load-rounds", 1, "rounds of the loading case (a 10-warehouse load is slow)")
	skipLoad := fs.Bool("skip-load", false, "skip the loading case")
	noPipeline := fs.Bool("no-pipeline", false, "run dbarena with --pipeline=false: one statement per round trip, as go-tpc sends them")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	errs := o.validate()
	if *loadRounds < 1 {
		errs = append(errs, fmt.Errorf("--load-rounds %d: want at least 1", *loadRounds))
	}
	if err := reportErrs(e, errs); err != nil {
		return err
	}
	b, err := newBench(ctx, e, "tpcc", o)
	if err != nil {
		return err
	}
	defer b.close()
	pg, err := openPG(ctx, b)
	if err != nil {
		return err
	}
	gotpc, origin, err := b.peerBinary(ctx, "go-tpc", goTPCVersion, "GO_TPC_BIN", func(ctx context.Context, out string) error {
		dir := filepath.Join(b.work, "go-tpc-build")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		// A throw-away module: `go install …@version` fails on a proxy
		// without version lists.
		env := []string{"GOWORK=off", "CGO_ENABLED=0"}
		for _, argv := range [][]string{{"go", "mod", "init", "gotpcbuild"}, {"go", "get", "github.com/pingcap/go-tpc/cmd/go-tpc@" + goTPCVersion},
			{"go", "build", "-o", out, "github.com/pingcap/go-tpc/cmd/go-tpc"}} {
			if _, err := runIn(ctx, dir, env, argv...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	sslmode := pg.sslmode
	if sslmode == "" {
		sslmode = "disable" // lib/pq's default, require, fails on servers without TLS
	}
	t := &tpccRun{b: b, pg: pg, gotpc: gotpc, pipeline: !*noPipeline, suffix: strconv.Itoa(os.Getpid()),
		conn: []string{"--driver", "postgres", "-H", pg.host, "-P", pg.port, "-U", pg.user, "-p", pg.pass, "--conn-params", "sslmode=" + sslmode}}
	var out strings.Builder
	fails := 0
	if !*skipLoad {
		k := t.loadCase()
		saved := b.opt.rounds
		b.opt.rounds = *loadRounds
		err := b.runRounds(ctx, []*kase{k}, false, t.runLoad)
		b.opt.rounds = saved
		if err != nil {
			return err
		}
		fmt.Fprintf(&out, "## 1. Loading: %d warehouses\n\n```sh\n%s\n%s\n```\n\n", tpccLoadWarehouses,
			shown(t.loadCmd("go-tpc", t.db("load_gotpc")), pg.pass), shown(t.loadCmd("dbarena", t.db("load_dbarena")), pg.pass))
		fails += writeCase(&out, k, "1.1")
	}
	k, err := t.runCase(ctx)
	if err != nil {
		return err
	}
	size0 := t.sizes(ctx)
	if err := b.runRounds(ctx, []*kase{k}, false, t.runRun); err != nil {
		return err
	}
	k.notes = append(k.notes, fmt.Sprintf("The databases grew over the rounds: %s before round 1, %s after the last.", size0, t.sizes(ctx)))
	fmt.Fprintf(&out, "## 2. Running: %d warehouses, %d threads, %s warm-up + %s\n\n```sh\n%s\n```\n\n", tpccRunWarehouses, tpccRunThreads,
		o.warmup.d, o.time.d, strings.Join(t.shownRun(), "\n"))
	fails += writeCase(&out, k, "2.1")
	var rep strings.Builder
	b.header(&rep, "dbarena against go-tpc, TPC-C-like", pg.describe(ctx), "go-tpc: "+origin,
		"**client and server share these cores**: throughput ≈ cores ÷ (client CPU + server CPU per transaction)")
	fmt.Fprintf(&rep, "%s\n\n%s", measuredHow, out.String())
	return b.finish(rep.String(), fails)
}

type tpccRun struct {
	b        *bench
	pg       *pgServer
	gotpc    string
	conn     []string
	pipeline bool
	suffix   string
}

func (t *tpccRun) db(name string) string { return "bench_tpcc_" + name + "_" + t.suffix }

func (t *tpccRun) loadCmd(tool, db string) []string {
	if tool == "go-tpc" {
		return append(append([]string{t.gotpc, "tpcc"}, t.conn...), "-D", db, "--warehouses", strconv.Itoa(tpccLoadWarehouses),
			"-T", strconv.Itoa(tpccLoadThreads), "prepare", "--no-check")
	}
	return []string{t.b.dbarena, "prepare", "tpcc", "--target", t.pg.url(db), "--warehouses", strconv.Itoa(tpccLoadWarehouses),
		"--load-threads", strconv.Itoa(tpccLoadThreads)}
}

func (t *tpccRun) loadCase() *kase {
	return &kase{
		title: fmt.Sprintf("%d warehouses, %d connections each", tpccLoadWarehouses, tpccLoadThreads),
		tools: []string{"go-tpc", "dbarena"},
		notes: []string{"Bar: go-tpc's prepare takes ≥ 3 × the wall time of dbarena's. Each load goes into a fresh database, a CHECKPOINT " +
			"before it, the database dropped once measured; go-tpc runs with `--no-check`. Wall time is the command's; the CHECKPOINT " +
			"after it is shown apart. go-tpc creates its indexes before the load, dbarena after the rows; retried INSERTs: go-tpc's " +
			"\"try again later\" lines (each costs it 10 s)."},
		cols: []column{{"wall_s", "wall s", 2}, {"checkpoint_s", "CHECKPOINT after, s", 2}, {"proc_cpu_s", "client CPU s", 2},
			{"server_cpu_s", "server CPU s", 1}, {"other_cpu_s", "other CPU s", 1}, {"rows", "rows", 0}, {"indexes", "indexes", 0},
			{"size_mb", "size of the tables, MB", 0}, {"retries", "retried INSERTs", 0}, {"wait_s", "wait s", 0}},
		ratios: []ratio{
			{"wall time, go-tpc ÷ dbarena", ref{"go-tpc", "wall_s"}, ref{"dbarena", "wall_s"}, &bar{">=", 3}},
			{"wall time with the CHECKPOINT after, go-tpc ÷ dbarena", ref{"go-tpc", "wall_ckpt_s"}, ref{"dbarena", "wall_ckpt_s"}, nil},
		},
	}
}

var tpccTables = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}

func (t *tpccRun) runLoad(ctx context.Context, k *kase, tool string, round int) (obs, error) {
	db := t.db("load_" + strings.ReplaceAll(tool, "-", ""))
	if err := t.pg.createDB(ctx, db); err != nil {
		return nil, err
	}
	if err := t.pg.exec(ctx, "CHECKPOINT"); err != nil {
		return nil, err
	}
	o, out, err := t.b.timed(ctx, fmt.Sprintf("load-r%d-%s", round+1, tool), t.loadCmd(tool, db), nil, t.pg.pid, t.pg.gone(ctx, db))
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := t.pg.exec(ctx, "CHECKPOINT"); err != nil {
		return nil, err
	}
	o["checkpoint_s"] = time.Since(start).Seconds()
	o["wall_ckpt_s"] = o["wall_s"] + o["checkpoint_s"]
	o["retries"] = math.NaN()
	if tool == "go-tpc" {
		o["retries"] = float64(strings.Count(out, "try again later"))
	}
	q := make([]string, len(tpccTables))
	for i, tb := range tpccTables {
		q[i] = "(SELECT count(*) FROM " + tb + ")"
	}
	var rows, idx, size int64
	if err := t.pg.in(ctx, db, "SELECT "+strings.Join(q, "+")+`, (SELECT count(*) FROM pg_indexes WHERE schemaname = 'public'),
		(SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		  WHERE n.nspname = 'public' AND c.relkind = 'r')`, &rows, &idx, &size); err != nil {
		return nil, err
	}
	o["rows"], o["indexes"], o["size_mb"] = float64(rows), float64(idx), float64(size)/1e6
	return o, t.pg.dropDB(ctx, db)
}

func (t *tpccRun) prepRun() [][]string {
	return [][]string{
		append(append([]string{t.gotpc, "tpcc"}, t.conn...), "-D", t.db("gotpc"), "--warehouses", strconv.Itoa(tpccRunWarehouses),
			"-T", strconv.Itoa(tpccPre), "prepare", "--no-check"),
		{t.b.dbarena, "prepare", "tpcc", "--target", t.pg.url(t.db("dbarena")), "--warehouses", strconv.Itoa(tpccRunWarehouses),
			"--load-threads", strconv.Itoa(tpccPre)},
	}
}

func (t *tpccRun) runCmd(tool, out string) []string {
	w, secs := t.b.opt.warmup.d, t.b.opt.time.d
	if tool == "go-tpc" {
		interval := w
		if interval <= 0 {
			interval = 10 * time.Second
		}
		return append(append([]string{t.gotpc, "tpcc"}, t.conn...), "-D", t.db("gotpc"), "--warehouses", strconv.Itoa(tpccRunWarehouses),
			"-T", strconv.Itoa(tpccRunThreads), "--time", (w + secs).String(), "--interval", interval.String(), "--ignore-error", "run")
	}
	return []string{t.b.dbarena, "run", "tpcc", "--target", t.pg.url(t.db("dbarena")), "--warehouses", strconv.Itoa(tpccRunWarehouses),
		"--threads", strconv.Itoa(tpccRunThreads), "--time", secs.String(), "--warmup", w.String(), "--pipeline=" + strconv.FormatBool(t.pipeline), "--out", out}
}

func (t *tpccRun) shownRun() []string {
	var out []string
	for _, argv := range t.prepRun() {
		out = append(out, shown(argv, t.pg.pass))
	}
	return append(out, shown(t.runCmd("go-tpc", ""), t.pg.pass), shown(t.runCmd("dbarena", "r.json"), t.pg.pass))
}

func (t *tpccRun) sizes(ctx context.Context) string {
	var a, b string
	_ = t.pg.admin.QueryRow(ctx, "SELECT pg_size_pretty(pg_database_size($1)), pg_size_pretty(pg_database_size($2))", t.db("gotpc"), t.db("dbarena")).Scan(&a, &b)
	return fmt.Sprintf("go-tpc's %s, dbarena's %s", a, b)
}

func (t *tpccRun) runCase(ctx context.Context) (*kase, error) {
	t.b.logf("preparing two %d-warehouse databases (go-tpc, then dbarena)", tpccRunWarehouses)
	for _, n := range []string{"gotpc", "dbarena"} {
		if err := t.pg.createDB(ctx, t.db(n)); err != nil {
			return nil, err
		}
	}
	for i, argv := range t.prepRun() {
		c, err := t.b.start(ctx, fmt.Sprintf("prepare-%d", i), argv, nil)
		if err != nil {
			return nil, err
		}
		if _, err := c.wait(); err != nil {
			return nil, err
		}
	}
	if err := t.pg.settle(ctx, t.db("gotpc"), t.db("dbarena")); err != nil {
		return nil, err
	}
	return &kase{
		title: fmt.Sprintf("%d warehouses, %d threads", tpccRunWarehouses, tpccRunThreads),
		tools: []string{"go-tpc", "dbarena"},
		notes: []string{fmt.Sprintf("Bars: dbarena's NOPM (New-Orders committed per minute, read from the database: the growth of "+
			"sum(d_next_o_id)) ≥ go-tpc's tpmC; dbarena's client CPU per transaction ≤ 0.5 × go-tpc's. dbarena runs `--mode client "+
			"--pipeline=%t`, no keying or think times; go-tpc without `--wait`, its default mix (45/43/4/4/4 %%; dbarena's deck "+
			"43.5/43.5/4.3/4.3/4.3 %%) and `--ignore-error`. The measured phase: dbarena's result file (`runs[0]`: NOPM, NO/min, "+
			"TPM, transactions, client_cpu_per_txn_us). go-tpc has no warm-up: it runs warm-up + time with `--interval` set to "+
			"the warm-up; at the end of the warm-up the program reads go-tpc's CPU (sysmon.ProcessTreeCPU), the server's and the "+
			"host's, and sum(d_next_o_id), and its first interval report ([Current] lines) gives the warm-up's transactions; "+
			"the measured phase is the totals at its exit (rusage, its [Summary] lines) minus those. go-tpc's tpmC counts its 1 %% "+
			"of rolled-back New-Orders, per minute from that instant to its exit; its client µs/txn divides by the transactions of "+
			"all five types, failures (`*_ERR`) excluded. **/proc µs/txn** applies the same cut to both tools; **NOPM (db)** is "+
			"the growth of sum(d_next_o_id) for both; **printed tpmC** is go-tpc's own final line over its whole run.", t.pipeline)},
		cols: []column{{"nopm_db", "NOPM (db)", 0}, {"no_min", "client-counted NO/min", 0}, {"tpm", "TPM", 0}, {"transactions", "transactions", 0},
			{"errors", "errors", 0}, {"client_us", "client µs/txn", 1}, {"proc_us", "/proc µs/txn", 1}, {"proc_total_s", "proc CPU s", 2},
			{"server_us", "server µs/txn", 1}, {"host_us", "host µs/txn", 1}, {"other_cpu_s", "other CPU s", 2}, {"printed_tpmc", "printed tpmC", 0}, {"wait_s", "wait s", 0}},
		ratios: []ratio{
			{"dbarena NOPM ÷ go-tpc tpmC", ref{"dbarena", "headline"}, ref{"go-tpc", "headline"}, &bar{">=", 1}},
			{"client CPU per transaction, dbarena ÷ go-tpc", ref{"dbarena", "client_us"}, ref{"go-tpc", "client_us"}, &bar{"<=", 0.5}},
			{"like for like: dbarena NO/min ÷ go-tpc tpmC", ref{"dbarena", "no_min"}, ref{"go-tpc", "no_min"}, nil},
			{"like for like: NOPM (db) of both", ref{"dbarena", "nopm_db"}, ref{"go-tpc", "nopm_db"}, nil},
			{"like for like: /proc µs/txn", ref{"dbarena", "proc_us"}, ref{"go-tpc", "proc_us"}, nil},
			{"server CPU per transaction, dbarena ÷ go-tpc", ref{"dbarena", "server_us"}, ref{"go-tpc", "server_us"}, nil},
		},
	}, nil
}

// sumNextOID is sum(d_next_o_id) of db, which every committed New-Order
// raises by one.
func (t *tpccRun) sumNextOID(ctx context.Context, db string) (float64, error) {
	var n int64
	err := t.pg.in(ctx, db, "SELECT sum(d_next_o_id)::bigint FROM district", &n)
	return float64(n), err
}

func sleepUntil(ctx context.Context, at time.Time) {
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(at)):
	}
}

func (t *tpccRun) runRun(ctx context.Context, k *kase, tool string, round int) (obs, error) {
	db := t.db(strings.ReplaceAll(tool, "-", ""))
	tag := fmt.Sprintf("r%d-%s", round+1, tool)
	resPath := filepath.Join(t.b.work, tag+".json")
	waited := t.b.quiet(ctx)
	nt0, err := t.sumNextOID(ctx, db)
	if err != nil {
		return nil, err
	}
	s0 := t.b.snapshot(t.pg.pid)
	c, err := t.b.start(ctx, tag, t.runCmd(tool, resPath), nil)
	if err != nil {
		return nil, err
	}
	// The end of the warm-up: what the tool, the server and the host have
	// used so far, and the New-Orders committed so far, are subtracted.
	cw, sw, ntw, tdb := 0.0, s0, nt0, s0.at
	var warmOut string
	if w := t.b.opt.warmup.d; w > 0 {
		sleepUntil(ctx, c.started.Add(w))
		d, err := sysmonTree(t.b, c.pid())
		if err != nil {
			_, werr := c.wait()
			return nil, fmt.Errorf("%s was gone before the end of its warm-up: %v %v", tool, err, werr)
		}
		cw, sw = d, t.b.snapshot(t.pg.pid)
		// A connection takes a while on a busy host: the database's window
		// starts when it has answered.
		if ntw, err = t.sumNextOID(ctx, db); err != nil {
			return nil, err
		}
		tdb = time.Now()
		if tool == "go-tpc" {
			// Its first interval report is alone in its output until twice the warm-up.
			sleepUntil(ctx, c.started.Add(w*3/2))
			warmOut = c.output()
		}
	}
	total, err := c.wait()
	t1 := time.Now()
	if err != nil {
		return nil, err
	}
	t.pg.gone(ctx, db)()
	s1 := t.b.snapshot(t.pg.pid)
	nt1, err := t.sumNextOID(ctx, db)
	if err != nil {
		return nil, err
	}
	after := total - cw
	o := obs{"wait_s": waited, "proc_total_s": total, "printed_tpmc": math.NaN()}
	var txns float64
	switch tool {
	case "dbarena":
		_, r, err := readResult(resPath)
		if err != nil {
			return nil, err
		}
		txns = float64(r.Transactions)
		o["headline"] = metricOf(r, "NOPM")
		o["nopm_db"], o["no_min"], o["tpm"] = o["headline"], metricOf(r, "NO/min"), metricOf(r, "TPM")
		o["client_us"], o["errors"] = r.ClientCPUPerTxnUS, float64(r.Errors)
	default:
		out := c.output()
		all, err := parseGoTPC(out, "Summary")
		if err != nil {
			return nil, err
		}
		var warm goTPCCounts
		if t.b.opt.warmup.d > 0 {
			if warm, err = parseGoTPC(warmOut, "Current"); err != nil {
				return nil, fmt.Errorf("no interval report at the end of the warm-up: %w", err)
			}
		}
		txns = float64(all.Transactions - warm.Transactions)
		secs := t1.Sub(sw.at).Seconds()
		o["errors"] = float64(all.Errors - warm.Errors)
		o["headline"] = float64(all.NewOrders-warm.NewOrders) * 60 / secs
		o["no_min"] = o["headline"]
		o["nopm_db"] = (nt1 - ntw) * 60 / t1.Sub(tdb).Seconds()
		o["tpm"] = txns * 60 / secs
		if txns > 0 {
			o["client_us"] = after * 1e6 / txns
		}
		if v, err := parseGoTPCtpmC(out); err == nil {
			o["printed_tpmc"] = v
		}
	}
	if txns <= 0 {
		return nil, fmt.Errorf("%s: no transactions after the warm-up", tool)
	}
	o["transactions"] = txns
	o.addWindow(sw, s1, after)
	o["proc_cpu_s"] = after
	o.perUnit(txns)
	return o, nil
}

// sysmonTree is a live process's CPU (its tree), in seconds.
func sysmonTree(b *bench, pid int) (float64, error) {
	d, err := sysmonProcessTreeCPU(b.proc, pid)
	return d.Seconds(), err
}
