package sysmon

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

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
)

// ownMongod is a standalone mongod of the test's own (never the shared
// test server), on a loopback port, that the test kills and starts again.
type ownMongod struct {
	args []string
	cmd  *exec.Cmd
	port int
}

func startOwnMongod(t *testing.T) *ownMongod {
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
	m := &ownMongod{port: port, args: []string{bin, "--dbpath", dir, "--bind_ip", "127.0.0.1", "--port", strconv.Itoa(port),
		"--unixSocketPrefix", dir, "--wiredTigerCacheSizeGB", "0.25",
		"--setParameter", "diagnosticDataCollectionEnabled=false", "--logpath", filepath.Join(dir, "mongod.log"), "--logappend"}}
	m.start(t)
	t.Cleanup(func() {
		m.cmd.Process.Signal(syscall.SIGTERM)
		m.cmd.Wait()
	})
	return m
}

func (m *ownMongod) start(t *testing.T) {
	t.Helper()
	m.cmd = exec.Command(m.args[0], m.args[1:]...)
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
}

// A MongoDB restart while the monitor samples, on the session's terms (a
// connection reopened when lost, the process the server tells): the
// serverStatus metrics stop while the server is down and come back after
// on the new process; no counter is taken across the restart (none went
// backwards) and no interval holds an impossible value.
func TestMongoRestart(t *testing.T) {
	srv := startOwnMongod(t)
	ctx := context.Background()
	target, err := engine.ParseTarget(fmt.Sprintf("mongodb://127.0.0.1:%d/bench?directConnection=true", srv.port), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	eng, err := engine.Open(octx, target, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	conn, err := eng.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	reopen := func(ctx context.Context) (Conn, error) {
		c, err := eng.Connect(ctx)
		if err != nil {
			return nil, err
		}
		conn.Close()
		conn = c
		return c, nil
	}
	t.Cleanup(func() { conn.Close() })
	pr := eng.(engine.ProcessReporter)
	locate := func(ctx context.Context) (int, string, error) {
		sp, err := pr.ServerProcess(ctx)
		return sp.PID, sp.DataDir, err
	}
	m := Open(ctx, Config{Conn: conn, Dialect: eng.Dialect(), Reopen: reopen, Locate: locate})
	if m.ServerPID() != srv.cmd.Process.Pid {
		t.Fatalf("monitor pid %d, server %d; notes %q", m.ServerPID(), srv.cmd.Process.Pid, m.Notes())
	}
	work, err := eng.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer work.Close()
	mc, _ := mongo.ConnOf(work)
	coll := mc.DB().Collection("restart")
	insert := func(from, n int) {
		docs := make([]any, n)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: from + i}}
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	const rate = "mongo_opcounters_insert_s"
	var ivs []Interval
	tick := func() Interval {
		time.Sleep(200 * time.Millisecond)
		iv := m.Tick(ctx)
		for k, v := range iv {
			if v < 0 || (strings.HasSuffix(k, "_pct") && k != "server_cpu_pct" && v > 100) {
				t.Errorf("impossible %s = %v in %v", k, v, iv)
			}
		}
		ivs = append(ivs, iv)
		return iv
	}
	m.Start(ctx)
	insert(0, 100)
	if iv := tick(); iv[rate] <= 0 || !hasAll(iv, "server_cpu_pct") {
		t.Fatalf("before the restart: %v; notes %q", iv, m.Notes())
	}

	old := srv.cmd.Process.Pid
	srv.cmd.Process.Signal(syscall.SIGKILL)
	srv.cmd.Wait()
	tick() // down
	srv.start(t)
	var resumed Interval
	for i := range 100 {
		ictx, cancel := context.WithTimeout(ctx, 2*time.Second)
		docs := []any{bson.D{{Key: "_id", Value: 1000 + i}}}
		_, err := coll.InsertMany(ictx, docs)
		cancel()
		iv := tick()
		if err == nil && iv[rate] > 0 && hasAll(iv, "server_cpu_pct") {
			resumed = iv
			break
		}
	}
	notes := strings.Join(m.Notes(), "\n")
	if resumed == nil {
		t.Fatalf("the metrics did not come back after the restart; last interval %v; notes:\n%s", ivs[len(ivs)-1], notes)
	}
	if m.ServerPID() == old || m.ServerPID() != srv.cmd.Process.Pid {
		t.Errorf("monitor pid %d after the restart, server %d (was %d)", m.ServerPID(), srv.cmd.Process.Pid, old)
	}
	for _, want := range []string{"connection: lost and reopened", "process: the server's process changed 1 time(s)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "backwards") {
		t.Errorf("a counter was taken across the restart:\n%s", notes)
	}
	t.Logf("resumed: %v\nnotes:\n%s", resumed, notes)
}
