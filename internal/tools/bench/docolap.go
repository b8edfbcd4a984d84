package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const (
	docolapBar   = 1.3  // dbarena's load ≤ 1.3 × the native load
	docolapBatch = 1000 // documents per insertMany, mongoload's default
)

// docWorkload is a workload of generated JSON documents whose load
// docolap times: its name, the option giving its number of documents,
// its table and columns, and what its indexes are.
type docWorkload struct {
	name, sizeFlag, table, columns, indexes string
}

var docWorkloads = map[string]docWorkload{
	"docolap":   {"docolap", "--events", "events", "id, doc", "the five indexes"},
	"jsonbench": {"jsonbench", "--docs", "bluesky", "id, data", "the one index (five keys)"},
}

// docolap times dbarena's load of a document workload's events (docolap's,
// or with -workload jsonbench JSONBench's) against each engine's own bulk
// path fed from a file of the same documents: psql's \copy on PostgreSQL,
// insertMany (internal/tools/mongoload) on MongoDB.
func docolap(ctx context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("docolap", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var o options
	o.registerRounds(fs, 7)
	wname := fs.String("workload", "docolap", "the workload whose documents are loaded: docolap or jsonbench")
	events := fs.Int("events", 1000000, "events to load (the dump's, and dbarena prepare's --events, or jsonbench's --docs)")
	threads := fs.Int("load-threads", 4, "dbarena's --load-threads, and mongoload's concurrent insertMany calls")
	engines := fs.String("engines", "postgres,mongo", "postgres, mongo or both, comma-separated")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	errs := o.validate()
	if *events < 1 {
		errs = append(errs, fmt.Errorf("--events %d: want a positive integer", *events))
	}
	if *threads < 1 {
		errs = append(errs, fmt.Errorf("--load-threads %d: want a positive integer", *threads))
	}
	wl, ok := docWorkloads[*wname]
	if !ok {
		errs = append(errs, fmt.Errorf("--workload %q: want docolap or jsonbench", *wname))
	}
	doPG, doMongo := false, false
	for _, name := range strings.Split(*engines, ",") {
		switch strings.TrimSpace(name) {
		case "postgres":
			doPG = true
		case "mongo":
			doMongo = true
		default:
			errs = append(errs, fmt.Errorf("--engines %q: %q is not postgres or mongo", *engines, name))
		}
	}
	if doPG {
		for _, t := range []string{"psql", "pg_dump"} {
			if _, err := exec.LookPath(t); err != nil {
				errs = append(errs, fmt.Errorf("%s is not installed (it comes with PostgreSQL's client; --engines mongo leaves PostgreSQL out)", t))
			}
		}
	}
	if err := reportErrs(e, errs); err != nil {
		return err
	}
	b, err := newBench(ctx, e, wl.name, o)
	if err != nil {
		return err
	}
	defer b.close()
	d := &docolapRun{b: b, wl: wl, events: *events, threads: *threads, db: "bench_" + wl.name + "_" + strconv.Itoa(os.Getpid()), engineOf: map[*kase]string{}}
	if doPG {
		if d.pg, err = openPG(ctx, b); err != nil {
			return err
		}
	}
	if doMongo {
		if d.ms, err = openMongo(ctx, b); err != nil {
			return err
		}
		b.onClose(func() {
			c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, db := range []string{d.db, d.db + "_ddl"} {
				if err := d.ms.client.Database(db).Drop(c); err != nil {
					b.logf("warning: could not drop the MongoDB database %s: %v", db, err)
				}
			}
		})
	}
	if err := d.setup(ctx); err != nil {
		return err
	}
	var cases []*kase
	if doPG {
		if err := d.setupPG(ctx); err != nil {
			return err
		}
		cases = append(cases, d.kase("postgres", "psql \\copy"))
	}
	if doMongo {
		if err := d.setupMongo(ctx); err != nil {
			return err
		}
		cases = append(cases, d.kase("mongodb", "insertMany"))
	}
	if err := b.runRounds(ctx, cases, false, d.run); err != nil {
		return err
	}
	var rep strings.Builder
	lines := []string{}
	if doPG {
		lines = append(lines, d.pg.describe(ctx), "psql: "+firstLine(commandOutput(ctx, "psql", "--version")))
	}
	if doMongo {
		lines = append(lines, fmt.Sprintf("MongoDB %s (mongod pid %d on this host; 0: not); the documents take %d bytes as BSON", d.ms.version, d.ms.pid, d.bsonBytes))
	}
	lines = append(lines, fmt.Sprintf("the file: `dbarena dump %s %s %d`: %d events, %d bytes, %.1f MB of JSON documents, written in %.1f s",
		wl.name, wl.sizeFlag, d.events, d.events, d.fileBytes, float64(d.jsonBytes)/1e6, d.dumpS))
	b.header(&rep, fmt.Sprintf("%s load: dbarena against the engines' bulk paths (%d events)", wl.name, d.events), lines...)
	fmt.Fprintf(&rep, "%s\n\n%s\n\n```sh\n%s\n```\n\n", measuredHow, d.intro(), strings.Join(d.shown(doPG, doMongo), "\n"))
	fails := 0
	for i, k := range cases {
		fails += writeCase(&rep, k, fmt.Sprintf("%d.", i+1))
	}
	return b.finish(rep.String(), fails)
}

type docolapRun struct {
	b        *bench
	wl       docWorkload
	pg       *pgServer
	ms       *mongoServer
	events   int
	threads  int
	db       string // dbarena's database; the native ones add _native (PostgreSQL) and _ddl
	engineOf map[*kase]string

	loader                          string // mongoload
	dump, bson, pre, post           string // files
	fileBytes, jsonBytes, bsonBytes int64
	dumpS                           float64
}

// setup writes the file of events and counts its documents' bytes; with
// MongoDB it encodes them as BSON once, for mongoload's rounds.
func (d *docolapRun) setup(ctx context.Context) error {
	b := d.b
	d.loader = filepath.Join(b.work, "mongoload")
	b.logf("building mongoload: CGO_ENABLED=0 go build -o %s ./internal/tools/mongoload", d.loader)
	if err := b.goBuild(ctx, b.root, d.loader, "./internal/tools/mongoload"); err != nil {
		return err
	}
	d.dump = filepath.Join(b.work, "events.copy")
	b.logf("writing the file: dbarena dump %s %s %d", d.wl.name, d.wl.sizeFlag, d.events)
	t0 := time.Now()
	if _, err := d.runUntimed(ctx, "dump", d.dumpCmd(), nil); err != nil {
		return err
	}
	d.dumpS = time.Since(t0).Seconds()
	st, err := os.Stat(d.dump)
	if err != nil {
		return err
	}
	d.fileBytes = st.Size()
	argv := []string{d.loader, "-file", d.dump, "-count"}
	if d.ms != nil {
		d.bson = filepath.Join(b.work, "events.bson")
		argv = []string{d.loader, "-file", d.dump, "-encode", d.bson}
		b.logf("encoding the documents as BSON, once")
	}
	out, err := d.runUntimed(ctx, "encode", argv, nil)
	if err != nil {
		return err
	}
	m, err := parseMongoload(out)
	if err != nil {
		return err
	}
	if m.Docs != int64(d.events) {
		return fmt.Errorf("the file holds %d events, not %d", m.Docs, d.events)
	}
	d.jsonBytes, d.bsonBytes = m.JSONBytes, m.BSONBytes
	return nil
}

// setupPG makes the databases, and the native table's definition from a
// small dbarena prepare: its CREATE TABLE (pg_dump's pre-data) and its
// primary key and indexes (post-data), with ANALYZE after them, as
// dbarena's prepare builds them after its load.
func (d *docolapRun) setupPG(ctx context.Context) error {
	for _, db := range []string{d.db, d.db + "_native", d.db + "_ddl"} {
		if err := d.pg.createDB(ctx, db); err != nil {
			return err
		}
	}
	ddl := d.pg.url(d.db + "_ddl")
	if _, err := d.runUntimed(ctx, "ddl-postgres", []string{d.b.dbarena, "prepare", d.wl.name, "--target", ddl, d.wl.sizeFlag, "1000", "--quiet"}, nil); err != nil {
		return err
	}
	d.pre, d.post = filepath.Join(d.b.work, "pre.sql"), filepath.Join(d.b.work, "post.sql")
	for _, s := range []struct{ section, file, extra string }{{"pre-data", d.pre, ""}, {"post-data", d.post, "ANALYZE public." + d.wl.table + ";\n"}} {
		out, err := d.runUntimed(ctx, "pg_dump-"+s.section, []string{"pg_dump", "--schema-only", "--no-owner", "--section=" + s.section, "-t", d.wl.table, d.libpqURL(d.db + "_ddl")}, d.pg.libpqEnv())
		if err != nil {
			return err
		}
		if err := os.WriteFile(s.file, []byte(out+s.extra), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// setupMongo loads a small dbarena collection whose indexes mongoload
// copies after its load.
func (d *docolapRun) setupMongo(ctx context.Context) error {
	_, err := d.runUntimed(ctx, "ddl-mongo", []string{d.b.dbarena, "prepare", d.wl.name, "--target", d.ms.url(d.db + "_ddl"), d.wl.sizeFlag, "1000", "--quiet"}, nil)
	return err
}

// libpqURL is a URL of database db for psql and pg_dump: no password
// (PGPASSWORD carries it), the URL's other parameters kept.
func (d *docolapRun) libpqURL(db string) string {
	u, err := url.Parse(d.pg.url(db))
	if err != nil {
		return d.pg.url(db)
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

func (d *docolapRun) runUntimed(ctx context.Context, tag string, argv, env []string) (string, error) {
	c, err := d.b.start(ctx, tag, argv, env)
	if err != nil {
		return "", err
	}
	if _, err := c.wait(); err != nil {
		return "", err
	}
	return c.output(), nil
}

func (d *docolapRun) kase(engine, native string) *kase {
	k := &kase{
		title: fmt.Sprintf("%s: %d events, dbarena against %s", engine, d.events, native),
		tools: []string{"dbarena", native},
		cols: []column{{"load_s", "load s", 3}, {"rows_s", "rows/s", 0}, {"mb_s", "MB/s", 1}, {"total_s", "total s (with indexes)", 3},
			{"proc_cpu_s", "client CPU s", 2}, {"client_us", "client µs/row", 1}, {"server_cpu_s", "server CPU s", 1},
			{"server_us", "server µs/row", 1}, {"other_cpu_s", "other CPU s", 1}, {"wait_s", "wait s", 0}},
		ratios: []ratio{
			{"load time (indexes excluded), dbarena ÷ " + native, ref{"dbarena", "load_s"}, ref{native, "load_s"}, &bar{"<=", docolapBar}},
			{"total time with the indexes, dbarena ÷ " + native, ref{"dbarena", "total_s"}, ref{native, "total_s"}, nil},
			{"client CPU per row, dbarena ÷ " + native, ref{"dbarena", "client_us"}, ref{native, "client_us"}, nil},
			{"server CPU per row, dbarena ÷ " + native, ref{"dbarena", "server_us"}, ref{native, "server_us"}, nil},
		},
	}
	d.engineOf[k] = engine
	return k
}

func (d *docolapRun) dumpCmd() []string {
	return []string{d.b.dbarena, "dump", d.wl.name, d.wl.sizeFlag, strconv.Itoa(d.events), "--out", d.dump}
}

func (d *docolapRun) prepareCmd(target string) []string {
	return []string{d.b.dbarena, "prepare", d.wl.name, "--target", target, d.wl.sizeFlag, strconv.Itoa(d.events),
		"--load-threads", strconv.Itoa(d.threads), "--quiet"}
}

func (d *docolapRun) psqlCmds() [][]string {
	conn := []string{"psql", "-X", "-v", "ON_ERROR_STOP=1", d.libpqURL(d.db + "_native")}
	return [][]string{
		append(append([]string{}, conn...), "-q", "-f", d.pre),
		append(append([]string{}, conn...), "-c", `\copy `+d.wl.table+` (`+d.wl.columns+`) FROM '`+d.dump+`'`),
		append(append([]string{}, conn...), "-q", "-f", d.post),
	}
}

func (d *docolapRun) mongoloadCmd() []string {
	return []string{d.loader, "-bson", d.bson, "-uri", d.ms.url(d.db), "-collection", d.wl.table + "_native", "-batch", strconv.Itoa(docolapBatch),
		"-workers", strconv.Itoa(d.threads), "-indexes-from", d.db + "_ddl." + d.wl.table, "-keep"}
}

func (d *docolapRun) shown(doPG, doMongo bool) []string {
	sec := d.b.secrets()
	if d.pg != nil {
		sec = append(sec, d.pg.pass)
	}
	out := []string{shown(d.dumpCmd(), sec...)}
	if doPG {
		out = append(out, shown(d.prepareCmd(d.pg.url(d.db)), sec...))
		for _, argv := range d.psqlCmds() {
			out = append(out, shown(argv, sec...))
		}
	}
	if doMongo {
		out = append(out, shown([]string{d.loader, "-file", d.dump, "-encode", d.bson}, sec...),
			shown(d.prepareCmd(d.ms.url(d.db)), sec...), shown(d.mongoloadCmd(), sec...))
	}
	return out
}

func (d *docolapRun) intro() string {
	return fmt.Sprintf("Bar, per engine: dbarena's load ≤ %[7]g × the native load (the median of the paired ratios; indexes excluded on "+
		"both sides); the totals with indexes, and the CPU, beside. The file (`dbarena dump %[1]s`, PostgreSQL's COPY text format: "+
		"id, tab, JSON document) is written once, before the rounds; so are the documents as BSON (mongoload -encode). "+
		"**dbarena**: `prepare %[1]s %[2]s %[3]d --load-threads %[4]d`, which generates the events as it loads them; its load is its "+
		"summary's \"rows in after\" (from the start of the prepare to the last row in, connecting and generation included), its "+
		"total the process's wall time; `dbarena cleanup %[1]s` after it, untimed. **psql \\copy**: into a fresh table made by "+
		"dbarena's own CREATE TABLE (pg_dump --section=pre-data of a 1,000-event prepare), one connection, text format; its load "+
		"is the wall time of the CREATE TABLE and the \\copy, its total adds the primary key, %[5]s and ANALYZE "+
		"(pg_dump --section=post-data), its client CPU that of the three psql processes; the table dropped after, untimed. "+
		"**insertMany** (internal/tools/mongoload): the pre-encoded documents read from the .bson file (not in its load), then "+
		"createCollection and unordered insertMany calls of %[6]d documents, %[4]d at a time; its load is that, its total adds "+
		"the same indexes (copied from a 1,000-event dbarena collection) in one createIndexes; its client CPU includes reading its file; "+
		"the collection dropped after, untimed. On PostgreSQL a CHECKPOINT precedes every load (untimed), so that no load pays for "+
		"another's dirty pages. Server and other CPU are over each side's whole run (with its indexes). Rates: rows/s, and MB/s "+
		"of the JSON documents' bytes (10^6 bytes, ids excluded), the same bytes for every tool. %[8]s; in each, per engine, "+
		"both tools load once, the order alternating from round to round.",
		d.wl.name, d.wl.sizeFlag, d.events, d.threads, d.wl.indexes, docolapBatch, docolapBar, roundsText(d.b.opt.rounds))
}

func (d *docolapRun) run(ctx context.Context, k *kase, tool string, round int) (obs, error) {
	engine := d.engineOf[k]
	tag := fmt.Sprintf("r%d-%s-%s", round+1, engine, strings.Fields(tool)[0])
	var o obs
	var err error
	switch {
	case tool == "dbarena":
		o, err = d.runDbarena(ctx, tag, engine)
	case engine == "postgres":
		o, err = d.runPsql(ctx, tag)
	default:
		o, err = d.runMongoload(ctx, tag)
	}
	if err != nil {
		return nil, err
	}
	o["rows_s"] = float64(d.events) / o["load_s"]
	o["mb_s"] = float64(d.jsonBytes) / 1e6 / o["load_s"]
	o["client_cpu_s"] = o["proc_cpu_s"]
	o.perUnit(float64(d.events))
	return o, nil
}

func (d *docolapRun) runDbarena(ctx context.Context, tag, engine string) (obs, error) {
	var target string
	var pid int
	var gone func()
	if engine == "postgres" {
		target, pid, gone = d.pg.url(d.db), d.pg.pid, d.pg.gone(ctx, d.db)
		if err := d.pg.exec(ctx, "CHECKPOINT"); err != nil {
			return nil, err
		}
	} else {
		target, pid = d.ms.url(d.db), d.ms.pid
	}
	o, out, err := d.b.timed(ctx, tag, d.prepareCmd(target), nil, pid, gone)
	if err != nil {
		return nil, err
	}
	if o["load_s"], err = dbarenaLoadSeconds(out); err != nil {
		return nil, err
	}
	o["total_s"] = o["wall_s"]
	if _, err := d.runUntimed(ctx, tag+"-cleanup", []string{d.b.dbarena, "cleanup", d.wl.name, "--target", target}, nil); err != nil {
		return nil, err
	}
	return o, nil
}

func (d *docolapRun) runPsql(ctx context.Context, tag string) (obs, error) {
	b, db := d.b, d.db+"_native"
	if err := d.pg.exec(ctx, "CHECKPOINT"); err != nil {
		return nil, err
	}
	waited := b.quiet(ctx)
	s0 := b.snapshot(d.pg.pid)
	var cpu, loadS float64
	var copied int64
	for i, argv := range d.psqlCmds() {
		c, err := b.start(ctx, fmt.Sprintf("%s-%d", tag, i+1), argv, d.pg.libpqEnv())
		if err != nil {
			return nil, err
		}
		t, err := c.wait()
		cpu += t
		if err != nil {
			return nil, err
		}
		if i == 1 {
			loadS = time.Since(s0.at).Seconds()
			if copied, err = parsePsqlCopy(c.output()); err != nil {
				return nil, err
			}
		}
	}
	total := time.Since(s0.at).Seconds()
	d.pg.gone(ctx, db)()
	s1 := b.snapshot(d.pg.pid)
	if copied != int64(d.events) {
		return nil, fmt.Errorf("psql copied %d rows, not %d", copied, d.events)
	}
	o := obs{"load_s": loadS, "total_s": total, "wall_s": total, "proc_cpu_s": cpu, "wait_s": waited}
	o.addWindow(s0, s1, cpu)
	return o, d.pg.in(ctx, db, "DROP TABLE "+d.wl.table)
}

func (d *docolapRun) runMongoload(ctx context.Context, tag string) (obs, error) {
	defer func() {
		c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_ = d.ms.client.Database(d.db).Collection(d.wl.table + "_native").Drop(c)
	}()
	o, out, err := d.b.timed(ctx, tag, d.mongoloadCmd(), nil, d.ms.pid, nil)
	if err != nil {
		return nil, err
	}
	m, err := parseMongoload(out)
	if err != nil {
		return nil, err
	}
	if !m.Loaded || m.Docs != int64(d.events) {
		return nil, fmt.Errorf("mongoload loaded %d documents, not %d", m.Docs, d.events)
	}
	o["load_s"], o["total_s"] = m.LoadS, m.LoadS+m.IndexS
	return o, nil
}
