package server_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/mariadb"
	"github.com/dbarena/dbarena/server/postgres"
)

// asServer is a command run as the user the server runs as (the owner of
// its run directory), in a session of its own, as someone restarting the
// server by hand would run it.
func asServer(t *testing.T, s *server.Server, prog string, args ...string) *exec.Cmd {
	t.Helper()
	fi, err := os.Stat(s.RunDir())
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	cmd := exec.Command(prog, args...)
	cmd.Dir = s.RunDir()
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if int(st.Uid) != os.Geteuid() {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: st.Uid, Gid: st.Gid, Groups: []uint32{}}
	}
	return cmd
}

// listening tells whether something accepts connections on port.
func listening(port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// waitFor polls cond for up to a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute: not %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A server restarted from outside dbarena (a new main process on the
// same files, maybe on another port) runs: Alive finds the new process
// and its port and records them. It is stopped by what runs: Stop finds
// the new process through the server's PID file and its port, ends it,
// and only then removes the files.
func TestManagedStopRestartedOutside(t *testing.T) {
	for _, tc := range []struct {
		kind server.Kind
		// restart stops the server's main process and returns the command
		// of a new one, and the port it will listen on.
		restart func(t *testing.T, s *server.Server) (*exec.Cmd, int)
	}{
		// On another port: only postmaster.pid tells where it is.
		{postgres.ServerKind, func(t *testing.T, s *server.Server) (*exec.Cmd, int) {
			exe, err := os.Readlink("/proc/" + strconv.Itoa(s.PID()) + "/exe")
			if err != nil {
				t.Fatal(err)
			}
			pgctl := filepath.Join(filepath.Dir(exe), "pg_ctl")
			if out, err := asServer(t, s, pgctl, "stop", "-D", s.DataDir(), "-m", "fast", "-w").CombinedOutput(); err != nil {
				t.Fatalf("pg_ctl stop: %v\n%s", err, out)
			}
			port := freePort(t)
			return asServer(t, s, exe, "-D", s.DataDir(), "-p", strconv.Itoa(port)), port
		}},
		// On another port: only its PID file tells which process it is.
		{mariadb.ServerKind, func(t *testing.T, s *server.Server) (*exec.Cmd, int) {
			exe, err := os.Readlink("/proc/" + strconv.Itoa(s.PID()) + "/exe")
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(s.PID(), syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "stopped", func() bool { return !s.Alive() })
			port := freePort(t)
			return asServer(t, s, exe, "--defaults-file="+filepath.Join(s.RunDir(), "my.cnf"), "--port="+strconv.Itoa(port)), port
		}},
		// On the same port, from its configuration.
		{postgres.BouncerKind, func(t *testing.T, s *server.Server) (*exec.Cmd, int) {
			exe, err := os.Readlink("/proc/" + strconv.Itoa(s.PID()) + "/exe")
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(s.PID(), syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "stopped", func() bool { return !s.Alive() })
			return asServer(t, s, exe, filepath.Join(s.RunDir(), "pgbouncer.ini")), s.Port()
		}},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			h := home(t, false)
			s := start(t, server.Spec{Kind: tc.kind, Knobs: knobsFor(tc.kind), Home: h})
			old := s.PID()
			cmd, port := tc.restart(t, s)
			var logb strings.Builder
			cmd.Stdout, cmd.Stderr = &logb, &logb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(exited) }()
			t.Cleanup(func() { // whatever Stop did, nothing is left running
				_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
				<-exited
			})
			waitFor(t, "listening again", func() bool { return listening(port) })
			if alive(old) {
				t.Fatalf("the first main process %d runs still", old)
			}

			// It runs: its record takes the new process and port, for
			// server list and managed:NAME.
			l, err := server.Lookup(h, s.Name())
			if err != nil {
				t.Fatal(err)
			}
			if !l.Alive() || l.PID() != cmd.Process.Pid || l.Port() != port || l.Target().URL.Port() != strconv.Itoa(port) {
				t.Errorf("after the restart: Alive %v, PID %d, port %d, target %s; want alive, PID %d, port %d", l.Alive(), l.PID(), l.Port(), l.Target().Redacted(), cmd.Process.Pid, port)
			}
			if again, err := server.Lookup(h, s.Name()); err != nil || again.PID() != cmd.Process.Pid || again.Port() != port {
				t.Errorf("the record after the restart: PID %d, port %d (%v); want %d, %d", again.PID(), again.Port(), err, cmd.Process.Pid, port)
			}
			if err := l.Stop(context.Background()); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				t.Errorf("the restarted server (pid %d) runs after Stop:\n%s", cmd.Process.Pid, logb.String())
			}
			if listening(port) {
				t.Errorf("port %d takes connections after Stop", port)
			}
			if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
				t.Errorf("%s is left (%v)", s.Dir(), err)
			}
		})
	}
}

// freePort is a port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// knobsFor keeps the test's servers small.
func knobsFor(k server.Kind) []server.Knob {
	switch k {
	case mariadb.ServerKind:
		return []server.Knob{{Name: "innodb_buffer_pool_size", Value: "32M"}}
	default:
		return []server.Knob{{Name: "shared_buffers", Value: "16MB"}}
	}
}

// alive tells whether process pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}
