package main

import (
	"context"
	"debug/buildinfo"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const goYCSBVersion = "v1.0.3"

// mongoBench measures what the MongoDB driver costs dbarena: its client
// CPU per point read against mongod's own, against go-ycsb's on the same
// mongod, and against dbarena's on PostgreSQL.
func mongoBench(ctx context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("mongo", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var o options
	o.register(fs, 7, 20*time.Second, 3*time.Second)
	size := fs.Int("table-size", 100000, "documents of the one sbtest table, and records of go-ycsb's usertable")
	skipYCSB := fs.Bool("skip-ycsb", false, "leave go-ycsb out")
	fields := fs.Int("ycsb-fields", 1, "go-ycsb's fieldcount (1 field of 120 bytes: what oltp_point_select reads)")
	fieldLen := fs.Int("ycsb-field-length", 120, "go-ycsb's fieldlength")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	errs := o.validate()
	for name, v := range map[string]int{"--table-size": *size, "--ycsb-fields": *fields, "--ycsb-field-length": *fieldLen} {
		if v < 1 {
			errs = append(errs, fmt.Errorf("%s %d: want a positive integer", name, v))
		}
	}
	if err := reportErrs(e, errs); err != nil {
		return err
	}
	b, err := newBench(ctx, e, "mongo", o)
	if err != nil {
		return err
	}
	defer b.close()
	pg, err := openPG(ctx, b)
	if err != nil {
		return err
	}
	ms, err := openMongo(ctx, b)
	if err != nil {
		return err
	}
	m := &mongoRun{b: b, pg: pg, ms: ms, size: *size, db: "bench_mongo_" + strconv.Itoa(os.Getpid())}
	tools := []string{"dbarena-pg", "dbarena-mongo"}
	ycsbLine := ""
	if !*skipYCSB {
		if ycsbLine, err = m.setupYCSB(ctx, *fields, *fieldLen); err != nil {
			return err
		}
		tools = append(tools, "go-ycsb")
	}
	if err := pg.createDB(ctx, m.db); err != nil {
		return err
	}
	b.onClose(func() {
		c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = ms.client.Database(m.db).Drop(c)
	})
	for _, t := range []string{pg.url(m.db), ms.url(m.db)} {
		c, err := b.start(ctx, "prepare", []string{b.dbarena, "prepare", "oltp_point_select", "--target", t, "--tables", "1", "--table-size", strconv.Itoa(m.size)}, nil)
		if err != nil {
			return err
		}
		if _, err := c.wait(); err != nil {
			return err
		}
	}
	k := &kase{
		title: fmt.Sprintf("point reads, 8 threads, %s × %d rounds", o.time.d, o.rounds),
		tools: tools,
		notes: []string{fmt.Sprintf("Requirements: 1. dbarena's client CPU per operation on MongoDB < mongod's CPU per operation, so that "+
			"the driver's cost cannot decide a PostgreSQL-vs-MongoDB comparison; 2. dbarena's client CPU per point read on MongoDB "+
			"≤ go-ycsb's. dbarena runs oltp_point_select (%d rows or documents, reading c, 120 characters) with 8 threads and a %s "+
			"warm-up; its figures come from its result file (client_cpu_per_query_us, and server_cpu_per_query_us from its own "+
			"server metrics). go-ycsb runs workload C (read only, readallfields, uniform keys) with 8 threads and its own %s "+
			"warm-up; its CPU and mongod's are read through sysmon when the warm-up ends (its timer starts as it has connected) "+
			"and at its exit (rusage), after SIGINT at the end of --time (go-ycsb %s ignores maxexecutiontime); its operations "+
			"are its final READ count, which excludes the warm-up, and its QPS that count ÷ --time; its errors (READ_ERROR, about one a "+
			"thread) are the reads the SIGINT cut off.", m.size, o.warmup.d, o.warmup.d, goYCSBVersion)},
		cols: []column{{"qps", "QPS", 0}, {"client_us", "client CPU µs/query", 2}, {"server_us", "server CPU µs/query", 2},
			{"client_server", "client ÷ server", 2}, {"errors", "errors", 0}, {"wait_s", "wait s", 0}},
		ratios: []ratio{
			{"1. dbarena on MongoDB: client CPU ÷ mongod's CPU, per query", ref{"dbarena-mongo", "client_us"}, ref{"dbarena-mongo", "server_us"}, &bar{"<", 1}},
		},
	}
	if !*skipYCSB {
		k.ratios = append(k.ratios,
			ratio{"2. client CPU per point read, dbarena ÷ go-ycsb (MongoDB)", ref{"dbarena-mongo", "client_us"}, ref{"go-ycsb", "client_us"}, &bar{"<=", 1}},
			ratio{"QPS, dbarena ÷ go-ycsb (MongoDB)", ref{"dbarena-mongo", "qps"}, ref{"go-ycsb", "qps"}, nil},
			ratio{"mongod's CPU per read, dbarena's runs ÷ go-ycsb's", ref{"dbarena-mongo", "server_us"}, ref{"go-ycsb", "server_us"}, nil})
	}
	k.ratios = append(k.ratios, ratio{"dbarena's client CPU per query, MongoDB ÷ PostgreSQL", ref{"dbarena-mongo", "client_us"}, ref{"dbarena-pg", "client_us"}, nil})
	if err := b.runRounds(ctx, []*kase{k}, false, m.run); err != nil {
		return err
	}
	var rep strings.Builder
	lines := []string{pg.describe(ctx), fmt.Sprintf("MongoDB %s (mongod pid %d on this host; 0: not)", ms.version, ms.pid)}
	if ycsbLine != "" {
		lines = append(lines, ycsbLine)
	}
	b.header(&rep, "dbarena on MongoDB: what the driver costs", lines...)
	fmt.Fprintf(&rep, "%s\n\n```sh\n%s\n```\n\n", measuredHow, strings.Join(m.shown(), "\n"))
	fails := writeCase(&rep, k, "1.")
	return b.finish(rep.String(), fails)
}

type mongoRun struct {
	b     *bench
	pg    *pgServer
	ms    *mongoServer
	size  int
	db    string
	ycsb  string
	props string
}

func (m *mongoRun) setupYCSB(ctx context.Context, fields, fieldLen int) (string, error) {
	if has, err := m.ms.hasDB(ctx, "ycsb"); err != nil {
		return "", fmt.Errorf("listing the mongod's databases: %w", err)
	} else if has {
		return "", fmt.Errorf("the mongod already has a database ycsb, which go-ycsb would write to; drop it, point DBARENA_BENCH_MONGO at another server, or --skip-ycsb")
	}
	bin, origin, err := m.b.peerBinary(ctx, "go-ycsb", goYCSBVersion, "GO_YCSB_BIN", func(ctx context.Context, out string) error {
		// Built inside a copy of its own module: its go.mod replaces
		// apache/thrift with the version its Pegasus client needs.
		env := []string{"GOWORK=off", "CGO_ENABLED=0", "GOFLAGS=-mod=mod"}
		js, err := runIn(ctx, m.b.work, env, "go", "mod", "download", "-json", "github.com/pingcap/go-ycsb@"+goYCSBVersion)
		if err != nil {
			return err
		}
		var mod struct{ Dir string }
		if err := json.Unmarshal([]byte(js), &mod); err != nil || mod.Dir == "" {
			return fmt.Errorf("go mod download: no directory in %q", js)
		}
		src := filepath.Join(m.b.work, "go-ycsb-src")
		if _, err := runIn(ctx, m.b.work, nil, "cp", "-r", mod.Dir, src); err != nil {
			return err
		}
		if _, err := runIn(ctx, m.b.work, nil, "chmod", "-R", "u+w", src); err != nil {
			return err
		}
		_, err = runIn(ctx, src, env, "go", "build", "-o", out, "./cmd/go-ycsb")
		return err
	})
	if err != nil {
		return "", err
	}
	m.ycsb = bin
	driver := "unknown"
	if bi, err := buildinfo.ReadFile(bin); err == nil {
		for _, d := range bi.Deps {
			if d.Path == "go.mongodb.org/mongo-driver" {
				driver = d.Version
			}
		}
	}
	// The URL goes in a properties file, not on go-ycsb's command line.
	m.props = filepath.Join(m.b.work, "ycsb.properties")
	props := fmt.Sprintf("mongodb.url=%s\nworkload=core\nrecordcount=%d\nfieldcount=%d\nfieldlength=%d\nreadallfields=true\n"+
		"readproportion=1\nupdateproportion=0\nscanproportion=0\ninsertproportion=0\nrequestdistribution=uniform\n",
		m.ms.url("ycsb"), m.size, fields, fieldLen)
	if err := os.WriteFile(m.props, []byte(props), 0o600); err != nil {
		return "", err
	}
	m.b.onClose(func() {
		c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := m.ms.client.Database("ycsb").Drop(c); err != nil {
			m.b.logf("could not drop the database ycsb that go-ycsb loaded; drop it by hand: %v", err)
		}
	})
	m.b.logf("go-ycsb load: %d records", m.size)
	c, err := m.b.start(ctx, "ycsb-load", []string{bin, "load", "mongodb", "-P", m.props, "-p", "threadcount=8"}, nil)
	if err != nil {
		return "", err
	}
	if _, err := c.wait(); err != nil {
		return "", err
	}
	return fmt.Sprintf("go-ycsb: %s; its MongoDB driver go.mongodb.org/mongo-driver %s; workload C, %d records of %d field(s) × %d bytes",
		origin, driver, m.size, fields, fieldLen), nil
}

func (m *mongoRun) dbarenaCmd(tool, out string) []string {
	t := "pg=" + m.pg.url(m.db)
	if tool == "dbarena-mongo" {
		t = "mongodb=" + m.ms.url(m.db)
	}
	return []string{m.b.dbarena, "run", "oltp_point_select", "--target", t, "--tables", "1", "--table-size", strconv.Itoa(m.size),
		"--threads", "8", "--time", m.b.opt.time.d.String(), "--warmup", m.b.opt.warmup.d.String(), "--out", out}
}

func (m *mongoRun) ycsbCmd() []string {
	return []string{m.ycsb, "run", "mongodb", "-P", "ycsb.properties", "-p", "threadcount=8",
		"-p", "warmuptime=" + strconv.Itoa(int(m.b.opt.warmup.secs())), "-p", "operationcount=2000000000"}
}

func (m *mongoRun) shown() []string {
	out := []string{shown(m.dbarenaCmd("dbarena-pg", "r.json"), m.b.secrets()...), shown(m.dbarenaCmd("dbarena-mongo", "r.json"), m.b.secrets()...)}
	if m.ycsb != "" {
		out = append(out, shown(m.ycsbCmd()))
	}
	return out
}

func (m *mongoRun) run(ctx context.Context, k *kase, tool string, round int) (obs, error) {
	tag := fmt.Sprintf("r%d-%s", round+1, tool)
	if tool == "go-ycsb" {
		return m.runYCSB(ctx, tag)
	}
	res := filepath.Join(m.b.work, tag+".json")
	o, _, err := m.b.timed(ctx, tag, m.dbarenaCmd(tool, res), nil, 0, nil)
	if err != nil {
		return nil, err
	}
	_, r, err := readResult(res)
	if err != nil {
		return nil, err
	}
	o["qps"], o["client_us"], o["errors"] = r.QPS, r.ClientCPUPerQueryUS, float64(r.Errors)
	o["server_us"] = r.ServerCPUPerQueryUS
	if r.ServerCPUPerQueryUS == 0 {
		o["server_us"] = nanValue()
	}
	o["client_server"] = o["client_us"] / o["server_us"]
	return o, nil
}

func (m *mongoRun) runYCSB(ctx context.Context, tag string) (obs, error) {
	waited := m.b.quiet(ctx)
	argv := m.ycsbCmd()
	argv[4] = m.props
	c, err := m.b.start(ctx, tag, argv, nil)
	if err != nil {
		return nil, err
	}
	// go-ycsb's warm-up timer starts as it has connected.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(c.output(), "Connected to MongoDB!") {
		if time.Now().After(deadline) {
			_ = c.cmd.Process.Kill()
			_, err := c.wait()
			return nil, fmt.Errorf("go-ycsb did not connect: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	sleepUntil(ctx, time.Now().Add(m.b.opt.warmup.d))
	cw, err := sysmonTree(m.b, c.pid())
	if err != nil {
		_, werr := c.wait()
		return nil, fmt.Errorf("go-ycsb was gone during its warm-up: %v %v", err, werr)
	}
	sw := m.b.snapshot(m.ms.pid)
	sleepUntil(ctx, sw.at.Add(m.b.opt.time.d))
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	total, err := c.wait()
	if err != nil {
		return nil, err
	}
	s1 := m.b.snapshot(m.ms.pid)
	s, err := parseGoYCSB(c.output())
	if err != nil {
		return nil, err
	}
	n := float64(s.Reads)
	o := obs{"wait_s": waited, "qps": n / m.b.opt.time.secs(), "client_us": (total - cw) * 1e6 / n, "errors": float64(s.ReadErrors)}
	o.addWindow(sw, s1, total-cw)
	o["server_us"] = o["server_cpu_s"] * 1e6 / n
	o["client_server"] = o["client_us"] / o["server_us"]
	return o, nil
}
