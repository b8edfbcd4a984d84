package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/server"
)

// orphan starts `dbarena run` on a managed:postgres target of its own,
// waits until the server runs, and SIGKILLs dbarena: the server it
// started is left running. It returns the server and the killed
// process's PID.
func orphan(t *testing.T, bin string, env []string, home string) (*server.Server, int) {
	t.Helper()
	var out bytes.Buffer
	run := exec.Command(bin, "run", "oltp_point_select", "--target", "managed:postgres?shared_buffers=16MB", "--time", "120s", "--table-size", "500")
	run.Env, run.Stdout, run.Stderr = env, &out, &out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	if list, _ := server.List(home); list != nil {
		for _, s := range list {
			known[s.Name()] = true
		}
	}
	var srv *server.Server
	for deadline := time.Now().Add(2 * time.Minute); srv == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			run.Process.Kill()
			run.Wait()
			t.Fatalf("no managed server runs after 2 minutes:\n%s", out.String())
		}
		list, _ := server.List(home)
		for _, s := range list {
			if !known[s.Name()] && s.Alive() && s.Version() != "" {
				srv = s
			}
		}
	}
	if err := run.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	run.Wait()
	// Whatever happens below, the test leaves no server running.
	t.Cleanup(func() {
		if l, err := server.Lookup(home, srv.Name()); err == nil {
			l.Stop(t.Context())
		}
	})
	if !srv.Alive() {
		t.Fatalf("the server died with dbarena: nothing to reap")
	}
	return srv, run.Process.Pid
}

// A throw-away server whose dbarena was killed (SIGKILL: no deferred
// stop ran) is stopped and removed by the next `dbarena server` command,
// and by the next command with a managed target, each saying so.
func TestOrphanedServersReaped(t *testing.T) {
	bin := buildBinary(t)
	home := t.TempDir()
	env := append(os.Environ(), "DBARENA_HOME="+home)
	dbarena := func(args ...string) (stdout, stderr string, code int) {
		t.Helper()
		var o, e bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
	gone := func(srv *server.Server, pid int) {
		t.Helper()
		b, err := os.ReadFile("/proc/" + strconv.Itoa(srv.PID()) + "/stat")
		if err == nil && !strings.Contains(string(b), ") Z ") {
			t.Errorf("the orphaned server's postmaster %d still runs", srv.PID())
		}
		if _, err := os.Stat(filepath.Join(home, "servers", srv.Name())); !os.IsNotExist(err) {
			t.Errorf("the orphaned server's files are left (%v)", err)
		}
	}

	srv, pid := orphan(t, bin, env, home)
	stdout, stderr, code := dbarena("server", "list")
	want := "stopped managed postgres " + srv.Name() + ", left running by dbarena process " + strconv.Itoa(pid)
	if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stdout, "no managed servers") {
		t.Errorf("server list: exit %d, stdout %q, stderr %q; want %q and no servers", code, stdout, stderr, want)
	}
	gone(srv, pid)

	srv, pid = orphan(t, bin, env, home)
	_, stderr, code = dbarena("prepare", "oltp_point_select", "--target", "managed:nosuch")
	want = "stopped managed postgres " + srv.Name() + ", left running by dbarena process " + strconv.Itoa(pid)
	if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "no such managed server: nosuch") {
		t.Errorf("prepare --target managed:nosuch: exit %d, stderr %q; want %q", code, stderr, want)
	}
	gone(srv, pid)
}
