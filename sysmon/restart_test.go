package sysmon

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/server"
)

// restartable is a managed PostgreSQL of the test's own, which the test
// may stop and start again on the same data directory and port (never one
// of the shared test servers).
type restartable struct {
	srv    *server.Server
	binary string    // the postgres program
	pid    int       // the postmaster now running
	cmd    *exec.Cmd // the postmaster the test started, or nil
}

func startRestartable(t *testing.T) *restartable {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h := t.TempDir()
	for _, d := range []string{h, filepath.Dir(h)} { // the postgres user reads below it
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := server.Start(ctx, server.Spec{Kind: server.Postgres, Home: h, Knobs: []server.Knob{{Name: "shared_buffers", Value: "16MB"}}})
	if err != nil {
		t.Fatalf("starting a managed PostgreSQL: %v", err)
	}
	r := &restartable{srv: s, pid: s.PID()}
	t.Cleanup(func() {
		r.kill(t)
		if err := s.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	if r.binary, err = os.Readlink(fmt.Sprintf("/proc/%d/exe", s.PID())); err != nil {
		t.Fatal(err)
	}
	return r
}

// kill stops the restarted postmaster, if any, and waits for it.
func (r *restartable) kill(t *testing.T) {
	if r.cmd == nil {
		return
	}
	r.cmd.Process.Signal(syscall.SIGINT)
	r.cmd.Wait()
	r.cmd = nil
}

// restart stops the server at once (SIGQUIT: an immediate shutdown, which
// resets the statistics) and starts it again on the same data directory
// and port, as the user it ran as.
func (r *restartable) restart(t *testing.T) {
	t.Helper()
	st, err := os.Stat(fmt.Sprintf("/proc/%d", r.pid))
	if err != nil {
		t.Fatal(err)
	}
	uid, gid := st.Sys().(*syscall.Stat_t).Uid, st.Sys().(*syscall.Stat_t).Gid
	if err := syscall.Kill(r.pid, syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	if r.cmd != nil {
		r.cmd.Wait()
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(r.srv.DataDir(), "postmaster.pid")); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not stop in 30 s")
		}
	}
	cmd := exec.Command(r.binary, "-D", r.srv.DataDir(), "-p", strconv.Itoa(r.srv.Port()))
	cmd.Dir = filepath.Dir(r.srv.DataDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if u, err := user.Current(); err == nil && u.Uid != strconv.Itoa(int(uid)) {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uid, Gid: gid}
	}
	log, err := os.OpenFile(r.srv.LogFile(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.cmd, r.pid = cmd, cmd.Process.Pid
}

// open opens a connection to the server, waiting up to 30 s for it to
// accept them.
func (r *restartable) open(t *testing.T, ctx context.Context) (engine.SQLConn, error) {
	eng, err := engine.Open(ctx, r.srv.Target(), engine.Options{})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { eng.Close() })
	return engine.ConnectSQL(ctx, eng)
}

// A server restart while the monitor samples: the metrics stop while the
// server is down and come back after, on a new connection and the new
// postmaster; no interval holds an impossible value or a delta computed
// across the restart, and the notes say what happened.
func TestPostgresRestart(t *testing.T) {
	r := startRestartable(t)
	ctx := context.Background()
	conn, err := r.open(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	reopen := func(ctx context.Context) (Conn, error) {
		c, err := r.open(t, ctx)
		if err != nil {
			return nil, err
		}
		conn.Close()
		conn = c
		return c, nil
	}
	t.Cleanup(func() { conn.Close() })
	m := Open(ctx, Config{Conn: conn, Reopen: reopen})
	if m.ServerPID() != r.pid {
		t.Fatalf("monitor pid %d, server %d; notes %q", m.ServerPID(), r.pid, m.Notes())
	}
	work, err := r.open(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	insertCommits(t, work, "before", 50)
	work.Close()

	cores := float64(runtime.NumCPU())
	var ivs []Interval
	tick := func() Interval {
		time.Sleep(200 * time.Millisecond)
		iv := m.Tick(ctx)
		for k, v := range iv {
			if v < 0 || (strings.HasSuffix(k, "_pct") && k != "server_cpu_pct" && v > 100) || (k == "server_cpu_pct" && v > 100*cores+5) {
				t.Errorf("impossible %s = %v in %v", k, v, iv)
			}
		}
		ivs = append(ivs, iv)
		return iv
	}
	m.Start(ctx)
	for range 3 {
		if iv := tick(); !hasAll(iv, "pg_commits_s", "server_cpu_pct") {
			t.Fatalf("before the restart: %v; notes %q", iv, m.Notes())
		}
	}
	old := r.pid
	r.restart(t)
	// Down, then up again: a few ticks without the server's metrics.
	tick()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := r.open(t, ctx)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restarted server accepts no connection: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	work, err = r.open(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer work.Close()
	// A backend's statistics reach the views within a second or so.
	var resumed Interval
	for range 40 {
		insertCommits(t, work, fmt.Sprintf("after%d", len(ivs)), 20)
		if iv := tick(); iv["pg_tup_inserted_s"] > 0 && hasAll(iv, "pg_commits_s", "server_cpu_pct") {
			resumed = iv
			break
		}
	}
	notes := strings.Join(m.Notes(), "\n")
	if resumed == nil {
		t.Fatalf("the metrics did not come back after the restart; last interval %v; notes:\n%s", ivs[len(ivs)-1], notes)
	}
	if m.ServerPID() == old || m.ServerPID() != r.pid {
		t.Errorf("monitor pid %d after the restart, server %d (was %d)", m.ServerPID(), r.pid, old)
	}
	s := Summary(ivs)
	if s["pg_tup_inserted_s"] <= 0 {
		t.Errorf("summary %v", s)
	}
	for _, want := range []string{"connection: lost and reopened 1 time(s)", "process: the server's process changed 1 time(s) (restarted), the last to pid " + strconv.Itoa(r.pid)} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	t.Logf("resumed: %v\nnotes:\n%s", resumed, notes)
}

func hasAll(iv Interval, keys ...string) bool {
	for _, k := range keys {
		if _, ok := iv[k]; !ok {
			return false
		}
	}
	return true
}
