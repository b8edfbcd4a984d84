package sysmon

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/mariadb"
	"github.com/dbarena/dbarena/server/postgres"
)

// restartable is a managed server of the test's own, which the test may
// kill and start again on the same data directory and port (never one of
// the shared test servers).
type restartable struct {
	srv  *server.Server
	kill syscall.Signal // how the test stops it
	pid  int            // the server's main process now
	cmd  *exec.Cmd      // the process the test started, or nil
}

func startRestartable(t *testing.T, spec server.Spec, kill syscall.Signal) *restartable {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h := t.TempDir()
	for _, d := range []string{h, filepath.Dir(h)} { // the server's user reads below it
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	spec.Home = h
	s, err := server.Start(ctx, spec)
	if err != nil {
		t.Fatalf("starting a managed %s: %v", spec.Kind, err)
	}
	r := &restartable{srv: s, kill: kill, pid: s.PID()}
	t.Cleanup(func() {
		if r.cmd != nil {
			r.cmd.Process.Signal(syscall.SIGTERM)
			r.cmd.Wait()
		}
		if err := s.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return r
}

// restart kills the server with r.kill and starts it again as it ran: the
// same program, arguments (but a one-time --init-file), directory and
// user.
func (r *restartable) restart(t *testing.T) {
	t.Helper()
	proc := fmt.Sprintf("/proc/%d/", r.pid)
	exe, err := os.Readlink(proc + "exe")
	if err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Readlink(proc + "cwd")
	b, err := os.ReadFile(proc + "cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, a := range strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")[1:] {
		if !strings.HasPrefix(a, "--init-file=") {
			args = append(args, a)
		}
	}
	st, err := os.Stat(proc)
	if err != nil {
		t.Fatal(err)
	}
	owner := st.Sys().(*syscall.Stat_t)
	if err := syscall.Kill(r.pid, r.kill); err != nil {
		t.Fatal(err)
	}
	if r.cmd != nil {
		r.cmd.Wait()
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if !running(r.pid) && !exists(filepath.Join(r.srv.DataDir(), "postmaster.pid")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not stop in 30 s")
		}
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if int(owner.Uid) != os.Getuid() {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: owner.Uid, Gid: owner.Gid}
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

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// running tells whether pid is a live process (not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// open opens a connection to the server.
func (r *restartable) open(t *testing.T, ctx context.Context) (engine.SQLConn, error) {
	eng, err := engine.Open(ctx, r.srv.Target(), engine.Options{})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { eng.Close() })
	return engine.ConnectSQL(ctx, eng)
}

// A server restart while the monitor samples: the metrics stop while the
// server is down and come back after, on a new connection and the server's
// new process; no interval holds an impossible value, and the notes say
// what happened.
func TestServerRestart(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec server.Spec
		kill syscall.Signal // PostgreSQL: an immediate shutdown (statistics reset); MariaDB: a crash
		// rate is a metric of the server's statistics that the load
		// drives; comm the name of its process.
		rate, comm string
	}{
		{"postgres", server.Spec{Kind: postgres.ServerKind, Knobs: []server.Knob{{Name: "shared_buffers", Value: "16MB"}}}, syscall.SIGQUIT, "pg_tup_inserted_s", "postgres"},
		{"mariadb", server.Spec{Kind: mariadb.ServerKind, Knobs: []server.Knob{{Name: "innodb_buffer_pool_size", Value: "32M"}}}, syscall.SIGKILL, "mysql_com_insert_s", "mariadbd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testRestart(t, startRestartable(t, tc.spec, tc.kill), tc.rate, tc.comm)
		})
	}
}

func testRestart(t *testing.T, r *restartable, rate, comm string) {
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
	m := Open(ctx, Config{Conn: conn, Dialect: conn.Dialect(), Reopen: reopen})
	if m.ServerPID() != r.pid {
		t.Fatalf("monitor pid %d, server %d; notes %q", m.ServerPID(), r.pid, m.Notes())
	}

	cores := float64(runtime.NumCPU())
	var ivs []Interval
	tick := func() Interval {
		time.Sleep(200 * time.Millisecond)
		iv := m.Tick(ctx)
		for k, v := range iv {
			if v < 0 || (strings.HasSuffix(k, "_pct") && k != "server_cpu_pct" && v > 100) || (k == "server_cpu_pct" && v > cpuLimit(int(cores))) {
				t.Errorf("impossible %s = %v in %v", k, v, iv)
			}
		}
		ivs = append(ivs, iv)
		return iv
	}
	work, err := r.open(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	m.Start(ctx)
	insertCommits(t, work, "load_before", 50)
	work.Close()
	var before Interval
	for range 40 {
		if iv := tick(); iv[rate] > 0 && hasAll(iv, "server_cpu_pct") {
			before = iv
			break
		}
	}
	if before == nil {
		t.Fatalf("before the restart: %v; notes %q", ivs[len(ivs)-1], m.Notes())
	}

	old := r.pid
	r.restart(t)
	// Down, then up again: ticks without the server's metrics.
	var work2 engine.SQLConn
	for deadline := time.Now().Add(60 * time.Second); ; {
		iv := tick()
		if _, ok := iv[rate]; ok {
			t.Errorf("%s = %v while the server restarts: %v", rate, iv[rate], iv)
		}
		if work2, err = r.open(t, ctx); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restarted server accepts no connection: %v", err)
		}
	}
	defer work2.Close()
	// A backend's statistics reach the views within a second or so.
	var resumed Interval
	for i := range 40 {
		insertCommits(t, work2, fmt.Sprintf("load_after%d", i), 20)
		if iv := tick(); iv[rate] > 0 && hasAll(iv, "server_cpu_pct") {
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
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", m.ServerPID())); err != nil || strings.TrimSpace(string(b)) != comm {
		t.Errorf("pid %d is %q, want %s", m.ServerPID(), b, comm)
	}
	for _, want := range []string{"connection: lost and reopened", "process: the server's process changed 1 time(s) (restarted), the last to pid " + strconv.Itoa(r.pid)} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if s := Summary(ivs); s[rate] <= 0 {
		t.Errorf("summary %v", s)
	}
	t.Logf("before: %v\nresumed: %v\nnotes:\n%s", before, resumed, notes)
}

func hasAll(iv Interval, keys ...string) bool {
	for _, k := range keys {
		if _, ok := iv[k]; !ok {
			return false
		}
	}
	return true
}
