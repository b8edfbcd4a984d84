package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A process belongs to a server when it works in the server's
// directories or names a file there, and, checked against a PID file,
// when it started before the file was written.
func TestServerBelongs(t *testing.T) {
	run := t.TempDir()
	s := &Server{rec: record{RunDir: run, DataDir: filepath.Join(run, "data")}}
	if err := os.Mkdir(s.rec.DataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	// follow runs tail -f on file (/dev/null for none) in dir.
	follow := func(dir, file string) *exec.Cmd {
		t.Helper()
		cmd := exec.Command("tail", "-f", file)
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	before := time.Now().Add(-time.Hour)
	for _, f := range []string{filepath.Join(run, "x.ini"), run + "x"} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Remove(run + "x") })
	inData := follow(s.rec.DataDir, os.DevNull)
	naming := follow(os.TempDir(), filepath.Join(run, "x.ini"))
	other := follow(os.TempDir(), os.DevNull)
	prefix := follow(os.TempDir(), run+"x") // a file whose name merely starts alike
	for _, tc := range []struct {
		name     string
		pid      int
		notAfter time.Time
		want     bool
	}{
		{"working in its data directory", inData.Process.Pid, time.Time{}, true},
		{"naming a file of its run directory", naming.Process.Pid, time.Time{}, true},
		{"elsewhere", other.Process.Pid, time.Time{}, false},
		{"in a directory with the same prefix", prefix.Process.Pid, time.Time{}, false},
		{"started after its PID file was written", inData.Process.Pid, before, false},
		{"started before its PID file was written", inData.Process.Pid, time.Now().Add(time.Minute), true},
		{"this process", os.Getpid(), time.Time{}, false},
	} {
		if got := s.belongs(tc.pid, tc.notAfter); got != tc.want {
			t.Errorf("%s: belongs = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A PID file gives the PID on its first line and the port on the line
// the kind names.
func TestServerReadPIDFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.pid")
	if err := os.WriteFile(path, []byte("4242\n/data\n1795546602\n5433\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Server{}
	def := &KindDef{PIDFile: func(*Server) string { return path }, PIDFilePort: 4}
	pid, port, written := s.readPIDFile(def)
	if pid != 4242 || port != 5433 || written.IsZero() {
		t.Errorf("readPIDFile = %d, %d, %v", pid, port, written)
	}
	def.PIDFilePort = 0
	if pid, port, _ := s.readPIDFile(def); pid != 4242 || port != 0 {
		t.Errorf("without a port line: %d, %d", pid, port)
	}
	def.PIDFile = func(*Server) string { return filepath.Join(dir, "none.pid") }
	if pid, port, _ := s.readPIDFile(def); pid != 0 || port != 0 {
		t.Errorf("no file: %d, %d", pid, port)
	}
}
