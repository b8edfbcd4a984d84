package faults

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/mariadb"
	"github.com/dbarena/dbarena/server/postgres"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/all"
	_ "github.com/dbarena/dbarena/workload/all/mongo"
)

// proc is a server process as it was started: enough to start it again
// exactly so after it was killed.
type proc struct {
	pid  int
	args []string
	env  []string
	dir  string
	uid  uint32
	gid  uint32
}

// snapshot reads pid's command line, environment, working directory and
// owner from /proc.
func snapshot(t *testing.T, pid int) proc {
	t.Helper()
	p := proc{pid: pid}
	base := "/proc/" + strconv.Itoa(pid)
	b, err := os.ReadFile(base + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	p.args = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if b, err = os.ReadFile(base + "/environ"); err == nil {
		p.env = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	}
	if p.dir, err = os.Readlink(base + "/cwd"); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(base, &st); err != nil {
		t.Fatal(err)
	}
	p.uid, p.gid = st.Uid, st.Gid
	return p
}

// descendants lists pid's descendants, children first.
func descendants(pid int) []int {
	var out []int
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return nil
	}
	for _, f := range strings.Fields(string(b)) {
		c, _ := strconv.Atoi(f)
		out = append(out, c)
		out = append(out, descendants(c)...)
	}
	return out
}

// kill SIGKILLs the server and every process it started, and waits until
// they are gone.
func (p proc) kill(t *testing.T) {
	t.Helper()
	all := append([]int{p.pid}, descendants(p.pid)...)
	for _, pid := range all {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, pid := range all {
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(st), ") Z ") {
				break // a zombie its parent has not reaped: gone for our purposes
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// restart starts the killed server again, as it was started, and returns
// its new process (stopped and reaped when the test ends).
func (p proc) restart(t *testing.T, logPath string) proc {
	t.Helper()
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	var args []string
	for _, a := range p.args[1:] {
		// MariaDB's first start ran an init file, removed since.
		if !strings.HasPrefix(a, "--init-file=") {
			args = append(args, a)
		}
	}
	cmd := exec.Command(p.args[0], args...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = p.env, p.dir, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if p.uid != uint32(os.Getuid()) {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: p.uid, Gid: p.gid}
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("restart %s: %v", p.args[0], err)
	}
	np := p
	np.pid = cmd.Process.Pid
	go cmd.Wait() // reap it whenever it ends
	t.Cleanup(func() { np.kill(t) })
	return np
}

// waitPort waits until something accepts connections on 127.0.0.1:port.
func waitPort(t *testing.T, port int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on port %d after the restart: %v", port, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// victim is a server of the test's own.
type victim struct {
	target engine.Target
	pid    int
	port   int
	log    string
}

func managed(t *testing.T, kind server.Kind) victim {
	t.Helper()
	home := t.TempDir()
	for _, d := range []string{home, filepath.Dir(home)} {
		os.Chmod(d, 0o755)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := server.Start(ctx, server.Spec{Kind: kind, Home: home})
	if err != nil {
		t.Fatalf("start %s: %v", kind, err)
	}
	t.Cleanup(func() { s.Stop(context.Background()) })
	return victim{target: s.Target(), pid: s.PID(), port: s.Port(), log: s.LogFile()}
}

// mongod starts a one-member replica set without authentication.
func mongod(t *testing.T) victim {
	t.Helper()
	bin := os.Getenv("DBARENA_TEST_MONGOD")
	if bin == "" {
		t.Fatal("DBARENA_TEST_MONGOD is not set: start the test servers (scripts/testservers start mongo) and eval \"$(scripts/testservers env)\"")
	}
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	logPath := filepath.Join(dir, "mongod.log")
	cmd := exec.Command(bin, "--dbpath", dir, "--bind_ip", "127.0.0.1", "--port", strconv.Itoa(port),
		"--unixSocketPrefix", dir, "--replSet", "rsf", "--wiredTigerCacheSizeGB", "0.25", "--oplogSize", "64",
		"--setParameter", "diagnosticDataCollectionEnabled=false", "--logpath", logPath)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	first := proc{pid: cmd.Process.Pid}
	t.Cleanup(func() { first.kill(t) })
	waitPort(t, port)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true", port)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	cfg := bson.D{{Key: "_id", Value: "rsf"}, {Key: "members", Value: bson.A{bson.D{{Key: "_id", Value: 0}, {Key: "host", Value: fmt.Sprintf("127.0.0.1:%d", port)}}}}}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetInitiate", Value: cfg}}).Err(); err != nil {
		t.Fatalf("replSetInitiate: %v", err)
	}
	waitPrimary(t, ctx, c)
	target, err := engine.ParseTarget(fmt.Sprintf("mongod=mongodb://127.0.0.1:%d/bench?replicaSet=rsf", port), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return victim{target: target, pid: cmd.Process.Pid, port: port, log: logPath}
}

func waitPrimary(t *testing.T, ctx context.Context, c *mongo.Client) {
	t.Helper()
	for {
		var h struct {
			IsWritablePrimary bool `bson:"isWritablePrimary"`
		}
		if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&h); err == nil && h.IsWritablePrimary {
			return
		}
		if ctx.Err() != nil {
			t.Fatal("the mongod is not primary after 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Each server is killed with SIGKILL in the middle of a run and started
// again: the run goes on to its end, its workers reconnect (counted, not
// errors), the data passes its check afterwards, and the server's metrics
// resume after the restart.
func TestServerKilledAndRestartedMidRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(*testing.T) victim
	}{
		{"postgres", func(t *testing.T) victim { return managed(t, postgres.ServerKind) }},
		{"mariadb", func(t *testing.T) victim { return managed(t, mariadb.ServerKind) }},
		{"mongodb", mongod},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.start(t)
			killedAndRestarted(t, v, nil)
		})
	}
}

// A MongoDB worker that is between two transactions when its server is
// killed sees no error: its next transaction waits for the server, and
// the driver replaces the connections it lost. The run counts that as a
// reconnect all the same. At 10 transactions a second the four workers
// are idle at the kill most of the time.
func TestMongoIdleWorkersCountTheRestart(t *testing.T) {
	v := mongod(t)
	killedAndRestarted(t, v, func(c *runner.Config) {
		tps := 10.0
		c.Rate.TPS = &tps
	})
}

const (
	runFor   = 14 * time.Second
	killAt   = 4 * time.Second
	downFor  = time.Second
	interval = time.Second
	threads  = 4
)

// killedAndRestarted runs oltp_read_write on v and kills the server
// under it; configure, if not nil, changes the run's configuration.
func killedAndRestarted(t *testing.T, v victim, configure func(*runner.Config)) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, v.target, engine.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The session is told nothing of a managed server: dbarena sees a URL
	// target whose server goes away and comes back, as a user's would.
	s, err := session.Open(ctx, session.Options{Engine: eng, Target: v.target, PrepareOnFirstUse: true,
		Tool: result.Tool{Name: "dbarena", Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, _ := workload.Lookup("oltp_read_write")
	w := m.New()
	if err := w.Define().Options.Parse([]string{"--tables=2", "--table-size=1000"}); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsurePrepared(ctx, w); err != nil {
		t.Fatal(err)
	}

	p := snapshot(t, v.pid)
	cfg := runner.DefaultConfig()
	cfg.Threads, cfg.Duration, cfg.ReportInterval = threads, runFor, interval
	if configure != nil {
		configure(&cfg)
	}
	type outcome struct {
		file *result.File
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		f, err := s.Measure(ctx, w, []runner.Config{cfg}, session.Hooks{})
		done <- outcome{f, err}
	}()
	time.Sleep(killAt)
	p.kill(t)
	time.Sleep(downFor)
	p.restart(t, v.log)
	waitPort(t, v.port)
	o := <-done
	if o.err != nil {
		b, _ := os.ReadFile(v.log)
		if len(b) > 3000 {
			b = b[len(b)-3000:]
		}
		t.Fatalf("the run ended with %v\nthe end of the server's log:\n%s", o.err, b)
	}
	run := o.file.Runs[0]
	t.Logf("status %s: %d transactions, %d errors, %d retries, %d reconnects; intervals:", run.Status, run.Transactions, run.Errors, run.Retries, run.Reconnects)
	for _, iv := range run.Intervals {
		t.Logf("  t=%.0f tps %.1f errors %d reconnects %d server_cpu_pct %v", iv.TS, iv.TPS, iv.Errors, iv.Reconnects, iv.Server["server_cpu_pct"])
	}
	if run.Status != result.StatusComplete {
		t.Errorf("status %s (%s), want complete", run.Status, run.Error)
	}
	if run.Reconnects == 0 {
		t.Errorf("no reconnect counted")
	}
	if run.Errors != 0 {
		t.Errorf("%d errors: a lost connection is a reconnect, not an error of the workload", run.Errors)
	}
	last := run.Intervals[len(run.Intervals)-1]
	if last.TPS == 0 {
		t.Errorf("the last interval has no transactions: the run did not go on after the restart")
	}
	if _, ok := last.Server["server_cpu_pct"]; !ok {
		t.Errorf("the last interval has no server_cpu_pct: the server's metrics did not resume (notes %v)", o.file.Target.Monitor)
	}
	problems, err := load.Check(ctx, eng, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("check after the restart: %v", problems)
	}
}
