package main

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/engine/mongo"
	_ "github.com/dbarena/dbarena/engine/mysql"
	_ "github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
)

// shardedCLI runs dbarena processes against one target for the sharded
// tests.
type shardedCLI struct {
	t   *testing.T
	bin string
	env []string
	url string
}

// newShardedCLI runs dbarena on tg, its password in the engine's
// variable (as a pod gets it from a Secret), or in the URL for an engine
// that has none.
func newShardedCLI(t *testing.T, tg engine.Target) *shardedCLI {
	env := append(os.Environ(), "DBARENA_HOME="+t.TempDir())
	u := *tg.URL
	if r, ok := engine.Lookup(u.Scheme); ok && r.PasswordEnv != "" {
		env = append(env, r.PasswordEnv+"="+tg.Password.Reveal())
	} else if tg.Password.IsSet() {
		u.User = url.UserPassword(u.User.Username(), tg.Password.Reveal())
	}
	return &shardedCLI{t: t, bin: buildBinary(t), env: env, url: u.String()}
}

type outcome struct {
	out  string
	code int
}

// run runs dbarena with args and returns its output and exit status.
func (c *shardedCLI) run(args ...string) outcome {
	cmd := exec.Command(c.bin, args...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return outcome{string(out), exit.ExitCode()}
	}
	if err != nil {
		c.t.Fatalf("%v: %v", args, err)
	}
	return outcome{string(out), 0}
}

// shards runs n processes at once, process i with args(i).
func (c *shardedCLI) shards(n int, args func(i int) []string) []outcome {
	out := make([]outcome, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); out[i] = c.run(args(i)...) }()
	}
	wg.Wait()
	return out
}

func (c *shardedCLI) mustAll(what string, outs []outcome) {
	c.t.Helper()
	for i, o := range outs {
		if o.code != 0 {
			c.t.Fatalf("%s, shard %d: exit %d\n%s", what, i, o.code, o.out)
		}
	}
}

// must runs dbarena with args and fails the test unless it succeeds.
func (c *shardedCLI) must(args ...string) {
	c.t.Helper()
	if o := c.run(args...); o.code != 0 {
		c.t.Fatalf("%s: exit %d\n%s", strings.Join(args[:min(2, len(args))], " "), o.code, o.out)
	}
}

// mergeFrom merges the results sharded run stored in the target into
// out and reads the merged file.
func (c *shardedCLI) mergeFrom(run, out string) *result.File {
	c.t.Helper()
	c.must("merge", "--from", c.url, "--run-id", run, "-o", out)
	f, err := result.Read(out)
	if err != nil {
		c.t.Fatal(err)
	}
	return f
}

// checkShards runs w's check as n shards of run and fails the test
// unless every shard says ok.
func (c *shardedCLI) checkShards(n int, run, w string, data []string) {
	c.t.Helper()
	for _, o := range c.shards(n, func(i int) []string {
		return shardArgs(i, n, run, slices.Concat([]string{"check", w}, data)...)
	}) {
		if o.code != 0 || !strings.Contains(o.out, ": ok") {
			c.t.Errorf("sharded check: exit %d\n%s", o.code, o.out)
		}
	}
}

func shardArgs(i, n int, run string, args ...string) []string {
	return slices.Concat(args, []string{"--shard", fmt.Sprintf("%d/%d", i, n), "--run-id", run})
}

// sbtestHash is the md5 of every row of the sbtest tables, in key order.
func sbtestHash(t *testing.T, c engine.SQLConn, tables int) string {
	t.Helper()
	var all []string
	for i := 1; i <= tables; i++ {
		var h string
		q := fmt.Sprintf("SELECT md5(string_agg(id || ':' || k || ':' || c || ':' || pad, ',' ORDER BY id)) || ' ' || count(*) FROM sbtest%d", i)
		if err := c.QueryRow(context.Background(), q, nil, &h); err != nil {
			t.Fatal(err)
		}
		all = append(all, h)
	}
	return strings.Join(all, " ")
}

// inserted is what PostgreSQL counted as rows inserted into the sbtest
// tables, once every backend's statistics are in (they stop changing).
func inserted(t *testing.T, c engine.SQLConn) int64 {
	t.Helper()
	last := int64(-1)
	for range 50 {
		var n int64
		if err := c.QueryRow(context.Background(), "SELECT coalesce(sum(n_tup_ins), 0)::bigint FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname LIKE 'sbtest%'", nil, &n); err != nil {
			t.Fatal(err)
		}
		if n == last {
			return n
		}
		last = n
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatal("the statistics of the sbtest tables did not settle")
	return 0
}

// One oltp_read_write run as three processes (--shard i/3) against the
// real PostgreSQL of the tests: the sharded prepare loads the same rows
// as one process; the shards start within 50 ms of each other; merged
// from the target, their transactions are the sum of the shards' and what
// the server counted (every transaction inserts one row) within 1%;
// check passes on every shard.
func TestShardedPostgres(t *testing.T) {
	tg := testdb.Isolated(t, testdb.Postgres(t))
	c := newShardedCLI(t, tg)
	conn := enginetest.Connect(t, enginetest.Open(t, tg))
	data := []string{"--target", c.url, "--tables", "3", "--table-size", "30000"}

	c.must(slices.Concat([]string{"prepare", "oltp_read_write"}, data)...)
	want := sbtestHash(t, conn, 3)
	c.must(slices.Concat([]string{"cleanup", "oltp_read_write"}, data)...)
	c.mustAll("sharded prepare", c.shards(3, func(i int) []string {
		return shardArgs(i, 3, "prep", append([]string{"prepare", "oltp_read_write"}, data...)...)
	}))
	if got := sbtestHash(t, conn, 3); got != want {
		t.Fatalf("a sharded prepare loaded other rows:\n%s\nwant (one process)\n%s", got, want)
	}

	dir := t.TempDir()
	before := inserted(t, conn)
	c.mustAll("sharded run", c.shards(3, func(i int) []string {
		return shardArgs(i, 3, "run1", append([]string{"run", "oltp_read_write", "--threads", "2", "--time", "4s", "--warmup", "0",
			"--out", filepath.Join(dir, fmt.Sprintf("shard%d.json", i))}, data...)...)
	}))
	ins := inserted(t, conn) - before
	merged := filepath.Join(dir, "merged.json")
	m := c.mergeFrom("run1", merged)
	var sum int64
	for i := range 3 {
		f, err := result.Read(filepath.Join(dir, fmt.Sprintf("shard%d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		sum += f.Runs[0].Transactions
	}
	r := m.Runs[0]
	t.Logf("merged: %d transactions (shards' sum %d), %d threads; the server inserted %d rows; start skew %.3f ms", r.Transactions, sum, r.Threads, ins, r.Barrier.SkewMS)
	if r.Transactions != sum || r.Threads != 6 || len(m.MissingShards) != 0 {
		t.Errorf("merged %d transactions over %d threads, missing %v; the shards ran %d over 6", r.Transactions, r.Threads, m.MissingShards, sum)
	}
	// A transaction cut short at the end may have inserted its row.
	if d := math.Abs(float64(ins - r.Transactions)); d > committedSlack(r.Transactions, r.Threads) {
		t.Errorf("the server inserted %d rows for %d transactions: %.2f%% apart", ins, r.Transactions, 100*d/float64(r.Transactions))
	}
	if r.Barrier == nil || len(r.Barrier.Starts) != 3 || r.Barrier.Skew() > 50*time.Millisecond {
		t.Errorf("start barrier %+v: want 3 starts within 50 ms", r.Barrier)
	}
	c.checkShards(3, "check1", "oltp_read_write", data)
}

// --rate 600 over three shards is 600 transactions per second in all,
// and its arrivals are one process's: the same Poisson arrivals (from
// the same seed) in every interval, and evenly spaced ones at 600 ± 1%.
func TestShardedRate(t *testing.T) {
	tg := testdb.Isolated(t, testdb.Postgres(t))
	c := newShardedCLI(t, tg)
	data := []string{"--target", c.url, "--table-size", "10000"}
	c.must(slices.Concat([]string{"prepare", "oltp_point_select"}, data)...)
	dir := t.TempDir()
	read := func(path string) result.Run {
		t.Helper()
		f, err := result.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		return f.Runs[0]
	}
	sharded := func(run string, args []string) result.Run {
		t.Helper()
		c.mustAll("sharded run", c.shards(3, func(i int) []string {
			return shardArgs(i, 3, run, slices.Concat(args, []string{"--threads", "4", "--out", filepath.Join(dir, fmt.Sprintf("%s-%d.json", run, i))})...)
		}))
		return c.mergeFrom(run, filepath.Join(dir, run+".json")).Runs[0]
	}
	runArgs := append([]string{"run", "oltp_point_select", "--rate", "600", "--time", "4s", "--warmup", "0"}, data...)

	one := filepath.Join(dir, "one.json")
	if o := c.run(slices.Concat(runArgs, []string{"--threads", "12", "--out", one})...); o.code != 0 {
		t.Fatalf("one process: %s", o.out)
	}
	ur, mr := read(one), sharded("poisson", runArgs)
	// The arrivals of the measured phase are the same; how many of the
	// last started before the end depends on the host's load.
	t.Logf("poisson: merged %d arrivals, %d started, %.1f tps; one process %d arrivals, %d started, %.1f tps", mr.Offered, mr.Started, mr.TPS, ur.Offered, ur.Started, ur.TPS)
	if mr.Offered != ur.Offered || mr.OfferedTPS != 600 {
		t.Errorf("merged: %d arrivals, %.2f offered per second; one process: %d arrivals", mr.Offered, mr.OfferedTPS, ur.Offered)
	}
	if len(mr.Intervals) != len(ur.Intervals) {
		t.Fatalf("%d merged intervals, %d of one process", len(mr.Intervals), len(ur.Intervals))
	}
	for i := range mr.Intervals {
		// A transaction counts in the interval it ends in.
		a, b := mr.Intervals[i], ur.Intervals[i]
		// The arrivals are the same; when each transaction ends (the
		// interval it counts in) depends on how loaded the host is.
		if a.OfferedTPS != b.OfferedTPS {
			t.Errorf("interval %d: merged %.0f tps of %.0f offered, one process %.0f of %.0f", i, a.TPS, a.OfferedTPS, b.TPS, b.OfferedTPS)
		}
	}
	mr = sharded("uniform", slices.Concat(runArgs, []string{"--arrival", "uniform"}))
	t.Logf("uniform: merged %.1f tps of %.1f offered", mr.TPS, mr.OfferedTPS)
	if math.Abs(mr.TPS-600)/600 > 0.01 {
		t.Errorf("merged: %.2f tps; want 600 ± 1%%", mr.TPS)
	}
}

// A shard killed mid-run leaves the others to finish; merging from the
// target then says 2 of 3 shards and fails, or with --allow-partial
// writes the two. A shard that never starts makes the barrier fail,
// naming it.
func TestShardedKilledAndMissing(t *testing.T) {
	tg := testdb.Isolated(t, testdb.Postgres(t))
	c := newShardedCLI(t, tg)
	data := []string{"--target", c.url, "--table-size", "10000"}
	c.must(slices.Concat([]string{"prepare", "oltp_point_select"}, data)...)
	dir := t.TempDir()
	procs := make([]*exec.Cmd, 3)
	outs := make([]syncBuffer, 3)
	for i := range procs {
		procs[i] = exec.Command(c.bin, shardArgs(i, 3, "kill1", append([]string{"run", "oltp_point_select", "--threads", "2", "--time", "5s", "--warmup", "0",
			"--out", filepath.Join(dir, fmt.Sprintf("s%d.json", i))}, data...)...)...)
		procs[i].Env, procs[i].Stdout, procs[i].Stderr = c.env, &outs[i], &outs[i]
		if err := procs[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(outs[1].String(), "thds: 2") {
		if time.Now().After(deadline) {
			t.Fatalf("shard 1 reported nothing:\n%s", outs[1].String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := procs[1].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i, p := range procs {
		err := p.Wait()
		if i != 1 && err != nil {
			t.Errorf("shard %d: %v\n%s", i, err, outs[i].String())
		}
	}
	o := c.run("merge", "--from", c.url, "--run-id", "kill1", "-o", filepath.Join(dir, "m.json"))
	if o.code == 0 || !strings.Contains(o.out, "2 of 3 shards") || !strings.Contains(o.out, "shard 1 stored no result") {
		t.Errorf("merge of a run with a killed shard: exit %d\n%s", o.code, o.out)
	}
	if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
		t.Error("a partial merge wrote its file without --allow-partial")
	}
	o = c.run("merge", "--from", c.url, "--run-id", "kill1", "--allow-partial", "-o", filepath.Join(dir, "m.json"))
	if o.code == 0 || !strings.Contains(o.out, "2 of 3 shards") {
		t.Errorf("merge --allow-partial: exit %d\n%s", o.code, o.out)
	}
	m, err := result.Read(filepath.Join(dir, "m.json"))
	if err != nil {
		t.Fatalf("merge --allow-partial wrote no file: %v", err)
	}
	if len(m.MissingShards) != 1 || m.MissingShards[0] != 1 || m.Runs[0].Threads != 4 {
		t.Errorf("partial merge: missing %v, %d threads; want shard 1 missing, 4 threads", m.MissingShards, m.Runs[0].Threads)
	}

	outs2 := c.shards(2, func(i int) []string {
		return shardArgs(i*2, 3, "missing1", append([]string{"run", "oltp_point_select", "--time", "2s", "--barrier-timeout", "3s"}, data...)...)
	})
	for _, o := range outs2 {
		if o.code == 0 || !strings.Contains(o.out, "2 of 3 shards arrived") || !strings.Contains(o.out, "missing: 1") {
			t.Errorf("a barrier shard 1 never reached: exit %d\n%s", o.code, o.out)
		}
	}
}

// A plan run as two shards: each cell's runs start together, both
// shards prepare the data once, and merge --from writes one merged file
// per cell and repetition.
func TestShardedPlan(t *testing.T) {
	tg := testdb.Isolated(t, testdb.Postgres(t))
	c := newShardedCLI(t, tg)
	dir := t.TempDir()
	planFile := filepath.Join(dir, "p.yaml")
	yaml := fmt.Sprintf(`name: sharded
seed: 7
repetitions: 2
duration: 2s
warmup: 0s
threads: [2]
targets:
  - label: pg
    url: %q
workloads:
  - name: oltp_point_select
    options: {table-size: 5000}
`, c.url)
	if err := os.WriteFile(planFile, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c.mustAll("sharded plan", c.shards(2, func(i int) []string {
		return shardArgs(i, 2, "plan1", "plan", "run", planFile, "-o", filepath.Join(dir, fmt.Sprintf("out%d", i)))
	}))
	merged := filepath.Join(dir, "merged")
	c.must("merge", "--from", c.url, "--run-id", "plan1", "-o", merged)
	for rep := 1; rep <= 2; rep++ {
		f, err := result.Read(filepath.Join(merged, fmt.Sprintf("pg__oltp_point_select__t2#%d.json", rep)))
		if err != nil {
			t.Fatal(err)
		}
		r := f.Runs[0]
		if r.Threads != 4 || r.Barrier == nil || len(r.Barrier.Starts) != 2 || r.Barrier.Skew() > 50*time.Millisecond {
			t.Errorf("repetition %d: %d threads, barrier %+v; want 4 threads started within 50 ms", rep, r.Threads, r.Barrier)
		}
	}
}

// tpcc as three shards on the real MariaDB of the tests: the sharded
// prepare loads the same rows as one process (a checksum of every
// column but the load's timestamps, which each process takes from its
// own clock); the
// merged New-Orders and Payments are what the server's tables gained
// (orders, history), within 1%; the consistency check passes.
func TestShardedMariaDBTPCC(t *testing.T) {
	tg := testdb.Isolated(t, testdb.MySQL(t))
	c := newShardedCLI(t, tg)
	conn := enginetest.Connect(t, enginetest.Open(t, tg))
	ctx := context.Background()
	tables := []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}
	checksum := func() string {
		var sums []string
		for _, tb := range tables {
			var cols []string
			err := conn.QueryRows(ctx, "SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? AND data_type NOT IN ('datetime', 'timestamp', 'date') ORDER BY ordinal_position",
				[]any{tb}, func(row []any) error { cols = append(cols, fmt.Sprintf("%s", row[0])); return nil })
			if err != nil {
				t.Fatal(err)
			}
			var sum string
			q := fmt.Sprintf("SELECT CONCAT(COUNT(*), ':', COALESCE(SUM(CRC32(CONCAT_WS('|', %s))), 0)) FROM %s", strings.Join(cols, ", "), tb)
			if err := conn.QueryRow(ctx, q, nil, &sum); err != nil {
				t.Fatal(err)
			}
			sums = append(sums, tb+"="+sum)
		}
		return strings.Join(sums, " ")
	}
	count := func(tb string) int64 {
		var n int64
		if err := conn.QueryRow(ctx, "SELECT COUNT(*) FROM "+tb, nil, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	data := []string{"--target", c.url, "--warehouses", "3"}
	c.must(slices.Concat([]string{"prepare", "tpcc"}, data)...)
	want := checksum()
	c.must(slices.Concat([]string{"cleanup", "tpcc"}, data)...)
	c.mustAll("sharded prepare", c.shards(3, func(i int) []string {
		return shardArgs(i, 3, "prep", append([]string{"prepare", "tpcc"}, data...)...)
	}))
	if got := checksum(); got != want {
		t.Fatalf("a sharded prepare loaded other rows:\n%s\nwant (one process)\n%s", got, want)
	}
	orders, history := count("orders"), count("history")
	dir := t.TempDir()
	c.mustAll("sharded run", c.shards(3, func(i int) []string {
		return shardArgs(i, 3, "run1", append([]string{"run", "tpcc", "--threads", "2", "--time", "5s", "--warmup", "0",
			"--out", filepath.Join(dir, fmt.Sprintf("s%d.json", i))}, data...)...)
	}))
	merged := filepath.Join(dir, "merged.json")
	m := c.mergeFrom("run1", merged)
	r := m.Runs[0]
	ops := map[string]result.Op{}
	for _, op := range r.Ops {
		ops[op.Name] = op
	}
	newOrders := ops["new_order"].Count - ops["new_order"].Rollbacks
	payments := ops["payment"].Count
	dOrders, dHistory := count("orders")-orders, count("history")-history
	t.Logf("merged: %d transactions, %d committed New-Orders, %d Payments; the server's tables gained %d orders, %d history rows; start skew %.3f ms",
		r.Transactions, newOrders, payments, dOrders, dHistory, r.Barrier.SkewMS)
	for _, c := range []struct {
		what         string
		merged, rows int64
	}{{"New-Orders", newOrders, dOrders}, {"Payments", payments, dHistory}} {
		if c.merged == 0 || math.Abs(float64(c.rows-c.merged)) > committedSlack(c.merged, r.Threads) {
			t.Errorf("%s: merged %d, the server's table gained %d", c.what, c.merged, c.rows)
		}
	}
	if r.Threads != 6 || r.Barrier == nil || r.Barrier.Skew() > 50*time.Millisecond {
		t.Errorf("%d threads, barrier %+v; want 6 started within 50 ms", r.Threads, r.Barrier)
	}
	c.checkShards(3, "check1", "tpcc", data)
}

// payments as three shards on the real MongoDB of the tests: the sharded
// prepare loads the same documents as one process (every field but the
// load's timestamps, which each process takes from its own clock); the
// merged transfers are the documents the transfers collection gained,
// within 1%; the check passes.
func TestShardedMongoPayments(t *testing.T) {
	tg := testdb.Isolated(t, testdb.Mongo(t))
	c := newShardedCLI(t, tg)
	conn, err := enginetest.Open(t, tg).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	db := conn.(*mongo.Conn).DB()
	ctx := context.Background()
	colls := []string{"organizations", "users", "permissions", "tokens", "accounts", "cards", "transfers"}
	hash := func() string {
		var parts []string
		for _, name := range colls {
			cur, err := db.Collection(name).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
			if err != nil {
				t.Fatal(err)
			}
			h := md5.New()
			n := 0
			for cur.Next(ctx) {
				var doc bson.D
				if err := cur.Decode(&doc); err != nil {
					t.Fatal(err)
				}
				doc = slices.DeleteFunc(doc, func(e bson.E) bool { _, isTime := e.Value.(bson.DateTime); return isTime })
				fmt.Fprintf(h, "%v\n", doc)
				n++
			}
			if err := cur.Err(); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, fmt.Sprintf("%s=%d:%x", name, n, h.Sum(nil)))
		}
		return strings.Join(parts, " ")
	}
	transfers := func() int64 {
		n, err := db.Collection("transfers").CountDocuments(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	data := []string{"--target", c.url, "--accounts", "3000", "--users", "3000"}
	c.must(slices.Concat([]string{"prepare", "payments"}, data)...)
	want := hash()
	c.must(slices.Concat([]string{"cleanup", "payments"}, data)...)
	c.mustAll("sharded prepare", c.shards(3, func(i int) []string {
		return shardArgs(i, 3, "prep", append([]string{"prepare", "payments"}, data...)...)
	}))
	if got := hash(); got != want {
		t.Fatalf("a sharded prepare loaded other documents:\n%s\nwant (one process)\n%s", got, want)
	}
	before := transfers()
	dir := t.TempDir()
	c.mustAll("sharded run", c.shards(3, func(i int) []string {
		return shardArgs(i, 3, "run1", append([]string{"run", "payments", "--deletes=false", "--threads", "2", "--time", "5s", "--warmup", "0",
			"--out", filepath.Join(dir, fmt.Sprintf("s%d.json", i))}, data...)...)
	}))
	merged := filepath.Join(dir, "merged.json")
	m := c.mergeFrom("run1", merged)
	r := m.Runs[0]
	var xfers int64
	for _, op := range r.Ops {
		if op.Name == "transfer" {
			xfers = op.Count - op.Rollbacks
		}
	}
	gained := transfers() - before
	t.Logf("merged: %d transactions, %d transfers committed (%d rolled back); the transfers collection gained %d; start skew %.3f ms",
		r.Transactions, xfers, r.Rollbacks, gained, r.Barrier.SkewMS)
	if xfers == 0 || math.Abs(float64(gained-xfers)) > committedSlack(xfers, r.Threads) {
		t.Errorf("merged %d transfers, the collection gained %d", xfers, gained)
	}
	if r.Threads != 6 || r.Barrier == nil || r.Barrier.Skew() > 50*time.Millisecond {
		t.Errorf("%d threads, barrier %+v; want 6 started within 50 ms", r.Threads, r.Barrier)
	}
	c.checkShards(3, "check1", "payments", data)
}

// committedSlack is how far the rows a sharded run added may be from the
// transactions its merged file counts: 1%, and a transaction per worker
// at each end of the measured phase (committed at its edges, which the
// server counts and the file may not). On a loaded host, where a 5 s run
// commits a few hundred, the ends weigh more than 1%.
func committedSlack(counted int64, workers int) float64 {
	return 0.01*float64(counted) + 2*float64(workers)
}
