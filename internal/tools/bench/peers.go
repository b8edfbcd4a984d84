package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Fixed by the requirements; not options on purpose. Every tool draws its
// keys uniformly: pgbench -S has no other distribution, and sysbench's
// default (special) makes the work per query cheaper.
const (
	psTables, psTableSize, pgbenchScale, rwThreads = 4, 100000, 4, 8
	loadTables, loadTableSize, sbLoadThreads       = 8, 500000, 8
	scriptClients, scriptScale                     = 8, 4
)

func peers(ctx context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var o options
	o.register(fs, 7, 10*time.Second, 5*time.Second)
	conns := fs.String("connections", "8,64,256", "connection counts of the point-select cases, comma-separated")
	skipRW := fs.Bool("skip-rw", false, "skip the oltp_read_write case")
	skipLoad := fs.Bool("skip-load", false, "skip the loading case")
	loadRounds := fs.Int("load-rounds", 1, "rounds of the loading case (8 × 500,000 rows each)")
	noDiag := fs.Bool("no-diag", false, "skip the diagnostic dbarena runs with a goroutine per worker (--client-threads -1)")
	skipScripts := fs.Bool("skip-scripts", false, "skip the script workload against pgbench's built-in scripts")
	scriptsOnly := fs.Bool("scripts-only", false, "run the script workload's cases only")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	errs := o.validate()
	var connList []int
	for _, c := range strings.Split(*conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("--connections %q: want positive integers separated by commas", *conns))
			break
		}
		connList = append(connList, n)
	}
	if *skipScripts && *scriptsOnly {
		errs = append(errs, fmt.Errorf("--skip-scripts and --scripts-only leave nothing to run"))
	}
	if *loadRounds < 1 {
		errs = append(errs, fmt.Errorf("--load-rounds %d: want at least 1", *loadRounds))
	}
	for _, p := range []string{"pgbench", "sysbench"} {
		if _, err := exec.LookPath(p); err != nil {
			errs = append(errs, fmt.Errorf("%s is not installed (pgbench comes with PostgreSQL; sysbench: scripts/testservers start all installs it)", p))
		}
	}
	if err := reportErrs(e, errs); err != nil {
		return err
	}
	if *scriptsOnly {
		*skipLoad = true
	}
	b, err := newBench(ctx, e, "peers", o)
	if err != nil {
		return err
	}
	defer b.close()
	pg, err := openPG(ctx, b)
	if err != nil {
		return err
	}
	p := &peersRun{b: b, pg: pg, diag: !*noDiag, suffix: strconv.Itoa(os.Getpid())}
	var sections []string
	fails := 0
	var out strings.Builder
	if !*scriptsOnly {
		cases, err := p.pointCases(ctx, connList, !*skipRW)
		if err != nil {
			return err
		}
		if err := b.runRounds(ctx, cases, o.warmup.d > 0, p.runPoint); err != nil {
			return err
		}
		fmt.Fprintf(&out, "## 1. Load-generator cost\n\n%s\n\n```sh\n%s\n```\n\n", p.pointIntro(), strings.Join(p.shownPoint(cases[0]), "\n"))
		for i, k := range cases {
			fails += writeCase(&out, k, fmt.Sprintf("1.%d", i+1))
		}
		sections = append(sections, "load-generator cost")
	}
	if !*skipLoad {
		k := p.loadCase()
		saved := b.opt.rounds
		b.opt.rounds = *loadRounds
		err := b.runRounds(ctx, []*kase{k}, false, p.runLoad)
		b.opt.rounds = saved
		if err != nil {
			return err
		}
		fmt.Fprintf(&out, "## 2. Loading speed\n\n```sh\n%s\n```\n\n", strings.Join(p.shownLoad(), "\n"))
		fails += writeCase(&out, k, "2.1")
		sections = append(sections, "loading")
	}
	if !*skipScripts {
		cases, err := p.scriptCases(ctx)
		if err != nil {
			return err
		}
		if err := b.runRounds(ctx, cases, o.warmup.d > 0, p.runScript); err != nil {
			return err
		}
		fmt.Fprintf(&out, "## 3. The script workload against pgbench's built-in scripts\n\n%s\n\n```sh\n%s\n```\n\n", p.scriptIntro(), strings.Join(p.shownScripts(), "\n"))
		for i, k := range cases {
			fails += writeCase(&out, k, fmt.Sprintf("3.%d", i+1))
		}
		sections = append(sections, "the script workload")
	}
	var rep strings.Builder
	b.header(&rep, "dbarena against pgbench and sysbench: "+strings.Join(sections, ", "),
		pg.describe(ctx), "peers: "+firstLine(commandOutput(ctx, "pgbench", "--version"))+"; "+firstLine(commandOutput(ctx, "sysbench", "--version")),
		"**client and server share these cores**: QPS ≈ cores ÷ (client CPU + server CPU per query); other work on the host adds noise")
	fmt.Fprintf(&rep, "%s\n\n%s", measuredHow, out.String())
	return b.finish(rep.String(), fails)
}

type peersRun struct {
	b      *bench
	pg     *pgServer
	diag   bool
	suffix string
}

func (p *peersRun) db(name string) string { return "bench_peers_" + name + "_" + p.suffix }

func (p *peersRun) sbConn(db string) []string {
	return []string{"--db-driver=pgsql", "--pgsql-host=" + p.pg.host, "--pgsql-port=" + p.pg.port,
		"--pgsql-user=" + p.pg.user, "--pgsql-password=" + p.pg.pass, "--pgsql-db=" + db}
}

func (p *peersRun) pgbConn() []string {
	return []string{"-h", p.pg.host, "-p", p.pg.port, "-U", p.pg.user}
}

// pointCase is a point-select or oltp_read_write case at a connection count.
type pointCase struct {
	rw    bool
	conns int
}

var pointCases = map[*kase]pointCase{}

func (p *peersRun) pointCases(ctx context.Context, conns []int, rw bool) ([]*kase, error) {
	maxConns := rwThreads
	for _, c := range conns {
		maxConns = max(maxConns, c)
	}
	var allowed int
	if err := p.pg.admin.QueryRow(ctx, "SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int").Scan(&allowed); err != nil {
		return nil, err
	}
	if maxConns+4 > allowed {
		return nil, fmt.Errorf("--connections: %d connections need the server's max_connections at least %d beyond superuser_reserved_connections; it allows %d", maxConns, maxConns+4, allowed)
	}
	p.b.logf("preparing three databases (pgbench -i -s %d, sysbench and dbarena %d × %d rows)", pgbenchScale, psTables, psTableSize)
	for _, n := range []string{"pgbench", "sysbench", "dbarena"} {
		if err := p.pg.createDB(ctx, p.db(n)); err != nil {
			return nil, err
		}
	}
	for _, argv := range p.prepPoint() {
		if _, err := p.run(ctx, "prepare-"+filepath.Base(argv[0]), argv); err != nil {
			return nil, err
		}
	}
	if err := p.pg.settle(ctx, p.db("pgbench"), p.db("sysbench"), p.db("dbarena")); err != nil {
		return nil, err
	}
	cols := []column{{"queries", "queries", 0}, {"q_per_txn", "q/txn", 1}, {"qps", "QPS", 0}, {"client_cpu_s", "client CPU s", 2},
		{"client_us", "client µs/query", 2}, {"proc_cpu_s", "proc CPU s", 2}, {"server_us", "server µs/q", 2},
		{"host_us", "host µs/q", 2}, {"other_cpu_s", "other CPU s", 2}, {"wait_s", "wait s", 0}}
	var out []*kase
	mk := func(pc pointCase) *kase {
		k := &kase{cols: cols}
		if pc.rw {
			k.title = fmt.Sprintf("oltp_read_write, %d connections", pc.conns)
			k.tools = []string{"sysbench", "dbarena"}
			k.ratios = []ratio{
				{"client CPU per statement, dbarena ÷ sysbench", ref{"dbarena", "client_us"}, ref{"sysbench", "client_us"}, &bar{"<=", 1}},
				{"QPS, dbarena ÷ sysbench", ref{"dbarena", "qps"}, ref{"sysbench", "qps"}, nil},
			}
		} else {
			k.title = fmt.Sprintf("oltp_point_select, %d connections", pc.conns)
			k.tools = []string{"pgbench", "sysbench", "dbarena"}
			k.ratios = []ratio{
				{"client CPU per query, dbarena ÷ pgbench", ref{"dbarena", "client_us"}, ref{"pgbench", "client_us"}, &bar{"<=", 1}},
				{"QPS, dbarena ÷ sysbench", ref{"dbarena", "qps"}, ref{"sysbench", "qps"}, &bar{">=", 1}},
				{"client CPU per query, dbarena ÷ sysbench", ref{"dbarena", "client_us"}, ref{"sysbench", "client_us"}, nil},
				{"QPS, dbarena ÷ pgbench", ref{"dbarena", "qps"}, ref{"pgbench", "qps"}, nil},
			}
		}
		if p.diag {
			k.tools = append(k.tools, "dbarena-goroutines")
			base := k.ratios[0].den.tool
			k.ratios = append(k.ratios,
				ratio{"diagnostic: client CPU per query, dbarena with a goroutine per worker ÷ " + base, ref{"dbarena-goroutines", "client_us"}, ref{base, "client_us"}, nil})
		}
		pointCases[k] = pc
		return k
	}
	for _, c := range conns {
		out = append(out, mk(pointCase{conns: c}))
	}
	if rw {
		out = append(out, mk(pointCase{rw: true, conns: rwThreads}))
	}
	return out, nil
}

func (p *peersRun) prepPoint() [][]string {
	return [][]string{
		append(append([]string{"pgbench"}, p.pgbConn()...), "-i", "-q", "-s", strconv.Itoa(pgbenchScale), p.db("pgbench")),
		append(append([]string{"sysbench", "oltp_point_select"}, p.sbConn(p.db("sysbench"))...),
			"--tables="+strconv.Itoa(psTables), "--table-size="+strconv.Itoa(psTableSize), "--threads="+strconv.Itoa(psTables), "prepare"),
		{p.b.dbarena, "prepare", "oltp_point_select", "--target", p.pg.url(p.db("dbarena")),
			"--tables", strconv.Itoa(psTables), "--table-size", strconv.Itoa(psTableSize)},
	}
}

// run runs a command that is not measured (a prepare), failing with its log.
func (p *peersRun) run(ctx context.Context, tag string, argv []string) (string, error) {
	c, err := p.b.start(ctx, tag, argv, p.pg.libpqEnv())
	if err != nil {
		return "", err
	}
	if _, err := c.wait(); err != nil {
		return "", err
	}
	return c.output(), nil
}

func (p *peersRun) pointCmd(pc pointCase, tool string, secs float64, out string) []string {
	wl := "oltp_point_select"
	if pc.rw {
		wl = "oltp_read_write"
	}
	s := strconv.FormatFloat(secs, 'f', -1, 64)
	switch tool {
	case "pgbench":
		return append(append([]string{"pgbench"}, p.pgbConn()...), "-n", "-S", "-M", "prepared", "-c", strconv.Itoa(pc.conns), "-j", "2", "-T", s, p.db("pgbench"))
	case "sysbench":
		return append(append([]string{"sysbench", wl}, p.sbConn(p.db("sysbench"))...), "--tables="+strconv.Itoa(psTables),
			"--table-size="+strconv.Itoa(psTableSize), "--rand-type=uniform", "--threads="+strconv.Itoa(pc.conns), "--time="+s, "--report-interval=0", "run")
	}
	argv := []string{p.b.dbarena, "run", wl, "--target", p.pg.url(p.db("dbarena")), "--tables", strconv.Itoa(psTables),
		"--table-size", strconv.Itoa(psTableSize), "--rand-type", "uniform", "--threads", strconv.Itoa(pc.conns), "--time", s + "s", "--out", out}
	if tool == "dbarena-goroutines" {
		argv = append(argv, "--client-threads", "-1")
	}
	return argv
}

func (p *peersRun) runPoint(ctx context.Context, k *kase, tool string, round int) (obs, error) {
	pc := pointCases[k]
	secs := p.b.opt.time.secs()
	if round < 0 {
		secs = p.b.opt.warmup.secs()
	}
	tag := fmt.Sprintf("r%d-%s-%d-%s", round+1, map[bool]string{true: "rw", false: "point"}[pc.rw], pc.conns, tool)
	resPath := filepath.Join(p.b.work, tag+".json")
	db := p.db(strings.TrimSuffix(tool, "-goroutines"))
	o, out, err := p.b.timed(ctx, tag, p.pointCmd(pc, tool, secs, resPath), p.pg.libpqEnv(), p.pg.pid, p.pg.gone(ctx, db))
	if err != nil {
		return nil, err
	}
	var queries, txns float64
	switch tool {
	case "pgbench":
		s, err := parsePgbench(out)
		if err != nil {
			return nil, err
		}
		queries, txns, o["qps"], o["client_cpu_s"] = float64(s.Transactions), float64(s.Transactions), s.TPS, o["proc_cpu_s"]
	case "sysbench":
		s, err := parseSysbench(out)
		if err != nil {
			return nil, err
		}
		queries, txns, o["qps"], o["client_cpu_s"] = float64(s.Queries), float64(s.Transactions), s.QPS, o["proc_cpu_s"]
	default:
		_, r, err := readResult(resPath)
		if err != nil {
			return nil, err
		}
		queries, txns, o["qps"], o["client_cpu_s"] = float64(r.Queries), float64(r.Transactions), r.QPS, r.ClientCPUS
	}
	if queries <= 0 {
		return nil, fmt.Errorf("%s counted no queries", tool)
	}
	o["queries"], o["q_per_txn"] = queries, queries/txns
	o.perUnit(queries)
	return o, nil
}

func (p *peersRun) pointIntro() string {
	return fmt.Sprintf("Requirements: for point selects, dbarena's client CPU per query ≤ 1.0 × pgbench's and its QPS ≥ 1.0 × sysbench's; "+
		"for oltp_read_write, its client CPU per statement ≤ 1.0 × sysbench's (BEGIN and COMMIT count as statements for both: q/txn). "+
		"%s; in each, for each case, every tool runs %s back to back, the order rotating from round to round%s. "+
		"Data: pgbench `-i -s %d` (%d accounts), sysbench and dbarena %d × %d rows each, each tool in its own database, "+
		"VACUUM ANALYZE and CHECKPOINT after loading; every tool draws its keys uniformly (`--rand-type uniform`, as pgbench -S does). "+
		"dbarena drives its connections from OS threads (`--client-threads`, default one per CPU), as pgbench's `-j 2` does%s. "+
		"Commands of the first case (the others differ in the connection count and workload):",
		roundsText(p.b.opt.rounds), p.b.opt.time.d, warmText(p.b.opt.warmup.d), pgbenchScale, pgbenchScale*100000, psTables, psTableSize,
		map[bool]string{true: "; dbarena-goroutines, a diagnostic outside the verdicts, runs a goroutine per worker (`--client-threads -1`)", false: ""}[p.diag])
}

// roundsText is "1 round" or "n rounds".
func roundsText(n int) string {
	if n == 1 {
		return "1 round"
	}
	return strconv.Itoa(n) + " rounds"
}

func warmText(d time.Duration) string {
	if d <= 0 {
		return " (no warm-up)"
	}
	return fmt.Sprintf(" (after one discarded %s warm-up run of each tool in each case)", d)
}

func (p *peersRun) shownPoint(k *kase) []string {
	var out []string
	for _, argv := range p.prepPoint() {
		out = append(out, shown(argv, p.pg.pass))
	}
	for _, t := range k.tools {
		out = append(out, shown(p.pointCmd(pointCases[k], t, p.b.opt.time.secs(), "r.json"), p.pg.pass))
	}
	return out
}

// ---------------------------------------------------------------- loading

func (p *peersRun) loadCmd(tool, db string) []string {
	if tool == "sysbench prepare" {
		return append(append([]string{"sysbench", "oltp_read_write"}, p.sbConn(db)...), "--tables="+strconv.Itoa(loadTables),
			"--table-size="+strconv.Itoa(loadTableSize), "--threads="+strconv.Itoa(sbLoadThreads), "prepare")
	}
	return []string{p.b.dbarena, "prepare", "oltp_read_write", "--target", p.pg.url(db), "--tables", strconv.Itoa(loadTables),
		"--table-size", strconv.Itoa(loadTableSize)}
}

func (p *peersRun) shownLoad() []string {
	return []string{shown(p.loadCmd("sysbench prepare", p.db("load_sysbench")), p.pg.pass), shown(p.loadCmd("dbarena prepare", p.db("load_dbarena")), p.pg.pass)}
}

func (p *peersRun) loadCase() *kase {
	return &kase{
		title: fmt.Sprintf("oltp_read_write, %d × %d rows", loadTables, loadTableSize),
		tools: []string{"sysbench prepare", "dbarena prepare"},
		notes: []string{fmt.Sprintf("Requirement: sysbench's prepare takes ≥ 3 × the wall time of dbarena's. Each load goes into a fresh database, "+
			"a CHECKPOINT before it (so neither pays for the other's dirty pages), the database dropped once measured (so autovacuum "+
			"on one load cannot run during the next); the order rotates between rounds. sysbench: `--threads=%d` (its prepare gives each "+
			"thread whole tables); dbarena: its default `--load-threads`. Wall time is the command's; the CHECKPOINT after it is shown apart.", sbLoadThreads)},
		cols: []column{{"wall_s", "wall s", 2}, {"checkpoint_s", "CHECKPOINT after, s", 2}, {"proc_cpu_s", "client CPU s", 2},
			{"server_cpu_s", "server CPU s", 1}, {"other_cpu_s", "other CPU s", 1}, {"rows", "rows", 0}, {"indexes", "indexes", 0},
			{"size_mb", "size of the sbtest tables, MB", 0}, {"wait_s", "wait s", 0}},
		ratios: []ratio{
			{"wall time, sysbench ÷ dbarena", ref{"sysbench prepare", "wall_s"}, ref{"dbarena prepare", "wall_s"}, &bar{">=", 3}},
			{"wall time with the CHECKPOINT after, sysbench ÷ dbarena", ref{"sysbench prepare", "wall_ckpt_s"}, ref{"dbarena prepare", "wall_ckpt_s"}, nil},
		},
	}
}

func (p *peersRun) runLoad(ctx context.Context, k *kase, tool string, round int) (obs, error) {
	db := p.db("load_" + strings.Fields(tool)[0])
	if err := p.pg.createDB(ctx, db); err != nil {
		return nil, err
	}
	if err := p.pg.exec(ctx, "CHECKPOINT"); err != nil {
		return nil, err
	}
	o, _, err := p.b.timed(ctx, fmt.Sprintf("load-r%d-%s", round+1, strings.Fields(tool)[0]), p.loadCmd(tool, db), p.pg.libpqEnv(), p.pg.pid, p.pg.gone(ctx, db))
	if err != nil {
		return nil, err
	}
	t := time.Now()
	if err := p.pg.exec(ctx, "CHECKPOINT"); err != nil {
		return nil, err
	}
	o["checkpoint_s"] = time.Since(t).Seconds()
	o["wall_ckpt_s"] = o["wall_s"] + o["checkpoint_s"]
	var rows, idx, size int64
	q := make([]string, loadTables)
	for i := range q {
		q[i] = fmt.Sprintf("(SELECT count(*) FROM sbtest%d)", i+1)
	}
	err = p.pg.in(ctx, db, "SELECT "+strings.Join(q, "+")+`,
		(SELECT count(*) FROM pg_indexes WHERE schemaname = 'public' AND tablename LIKE 'sbtest%'),
		(SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		  WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname LIKE 'sbtest%')`, &rows, &idx, &size)
	if err != nil {
		return nil, err
	}
	o["rows"], o["indexes"], o["size_mb"] = float64(rows), float64(idx), float64(size)/1e6
	return o, p.pg.dropDB(ctx, db)
}

// ---------------------------------------------------------------- scripts

var scriptOf = map[*kase]string{}

func (p *peersRun) scriptCases(ctx context.Context) ([]*kase, error) {
	p.b.logf("pgbench -i -s %d into a database of its own, for pgbench and dbarena's script workload alike", scriptScale)
	if err := p.pg.createDB(ctx, p.db("script")); err != nil {
		return nil, err
	}
	if _, err := p.run(ctx, "prepare-script", p.prepScript()); err != nil {
		return nil, err
	}
	if err := p.pg.settle(ctx, p.db("script")); err != nil {
		return nil, err
	}
	var out []*kase
	for _, s := range []string{"select-only", "tpcb-like"} {
		k := &kase{
			title: s + fmt.Sprintf(", %d clients", scriptClients),
			tools: []string{"pgbench", "dbarena"},
			cols: []column{{"transactions", "transactions", 0}, {"tps", "TPS", 0}, {"client_cpu_s", "client CPU s", 2}, {"client_us", "client µs/txn", 2},
				{"proc_cpu_s", "proc CPU s", 2}, {"server_us", "server µs/txn", 2}, {"other_cpu_s", "other CPU s", 2}, {"failed", "failed", 0}, {"wait_s", "wait s", 0}},
			ratios: []ratio{
				{"TPS, dbarena ÷ pgbench", ref{"dbarena", "tps"}, ref{"pgbench", "tps"}, &bar{">=", 0.95}},
				{"client CPU per transaction, dbarena ÷ pgbench", ref{"dbarena", "client_us"}, ref{"pgbench", "client_us"}, &bar{"<=", 1.3}},
			},
		}
		scriptOf[k] = s
		out = append(out, k)
	}
	return out, nil
}

func (p *peersRun) prepScript() []string {
	return append(append([]string{"pgbench"}, p.pgbConn()...), "-i", "-q", "-s", strconv.Itoa(scriptScale), p.db("script"))
}

func (p *peersRun) scriptCmd(tool, script string, secs float64, out string) []string {
	s := strconv.FormatFloat(secs, 'f', -1, 64)
	if tool == "pgbench" {
		argv := append(append([]string{"pgbench"}, p.pgbConn()...), "-n")
		if script == "select-only" {
			argv = append(argv, "-S")
		}
		return append(argv, "-M", "prepared", "-c", strconv.Itoa(scriptClients), "-j", "2", "-T", s, p.db("script"))
	}
	return []string{p.b.dbarena, "run", "script", "--builtin", script, "--scale", strconv.Itoa(scriptScale), "--protocol", "prepared",
		"--target", p.pg.url(p.db("script")), "--threads", strconv.Itoa(scriptClients), "--time", s + "s", "--out", out}
}

func (p *peersRun) shownScripts() []string {
	out := []string{shown(p.prepScript(), p.pg.pass)}
	for _, s := range []string{"select-only", "tpcb-like"} {
		for _, t := range []string{"pgbench", "dbarena"} {
			out = append(out, shown(p.scriptCmd(t, s, p.b.opt.time.secs(), "r.json"), p.pg.pass))
		}
	}
	return out
}

func (p *peersRun) scriptIntro() string {
	return fmt.Sprintf("Requirements, for each script: dbarena's TPS ≥ 0.95 × pgbench's and its client CPU per transaction ≤ 1.3 × pgbench's. "+
		"dbarena runs pgbench's own scripts as its `script` workload (`--builtin`), both on one `pgbench -i -s %d` database "+
		"(VACUUM ANALYZE, CHECKPOINT), %d clients, prepared statements; %s of %s runs%s. tpcb-like writes: every run adds "+
		"to the same tables, and the rotation spreads their growth over both tools. TPS: pgbench's `tps` (without connection time), "+
		"dbarena's `runs[0].tps`; failed: pgbench's failed transactions, dbarena's errors.",
		scriptScale, scriptClients, roundsText(p.b.opt.rounds), p.b.opt.time.d, warmText(p.b.opt.warmup.d))
}

func (p *peersRun) runScript(ctx context.Context, k *kase, tool string, round int) (obs, error) {
	script := scriptOf[k]
	secs := p.b.opt.time.secs()
	if round < 0 {
		secs = p.b.opt.warmup.secs()
	}
	tag := fmt.Sprintf("s%d-%s-%s", round+1, tool, script)
	resPath := filepath.Join(p.b.work, tag+".json")
	o, out, err := p.b.timed(ctx, tag, p.scriptCmd(tool, script, secs, resPath), p.pg.libpqEnv(), p.pg.pid, p.pg.gone(ctx, p.db("script")))
	if err != nil {
		return nil, err
	}
	var txns float64
	if tool == "pgbench" {
		s, err := parsePgbench(out)
		if err != nil {
			return nil, err
		}
		txns, o["tps"], o["client_cpu_s"], o["failed"] = float64(s.Transactions), s.TPS, o["proc_cpu_s"], float64(s.Failed)
	} else {
		_, r, err := readResult(resPath)
		if err != nil {
			return nil, err
		}
		txns, o["tps"], o["client_cpu_s"], o["failed"] = float64(r.Transactions), r.TPS, r.ClientCPUS, float64(r.Errors)
	}
	if txns <= 0 {
		return nil, fmt.Errorf("%s counted no transactions", tool)
	}
	o["transactions"] = txns
	o.perUnit(txns)
	return o, nil
}

// commandOutput is a command's output, "" when it fails.
func commandOutput(ctx context.Context, argv ...string) string {
	out, _ := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	return string(out)
}
