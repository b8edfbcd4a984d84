package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// A damaged record whose directories are the root or a top-level
// directory claims no process.
func TestServerDirsRefuseBroadOnes(t *testing.T) {
	for _, d := range []string{"/", "/tmp", "relative/dir", ""} {
		s := &Server{rec: record{RunDir: d, DataDir: d, BinDir: "/usr/bin"}}
		if got := s.dirs(); len(got) != 0 {
			t.Errorf("dirs(%q) = %q", d, got)
		}
		if got := s.working(); len(got) != 0 {
			t.Errorf("working(%q) = %v", d, got)
		}
		if s.belongs(os.Getppid(), time.Time{}) {
			t.Errorf("belongs with %q", d)
		}
	}
}

// The processes that run one of the server's programs in its
// directories are found without a PID file or a port.
func TestServerWorking(t *testing.T) {
	run := t.TempDir()
	tail, err := exec.LookPath("tail")
	if err != nil {
		t.Fatal(err)
	}
	tail, _ = filepath.EvalSymlinks(tail)
	cmd := exec.Command(tail, "-f", os.DevNull)
	cmd.Dir = run
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	elsewhere := exec.Command(tail, "-f", os.DevNull)
	if err := elsewhere.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { elsewhere.Process.Kill(); elsewhere.Wait() })

	s := &Server{rec: record{RunDir: run, BinDir: filepath.Dir(tail)}}
	deadline := time.Now().Add(time.Minute)
	for got := s.working(); !slices.Contains(got, cmd.Process.Pid); got = s.working() {
		if time.Now().After(deadline) { // the child may not have reached exec yet
			t.Fatalf("working() = %v, want %d", got, cmd.Process.Pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := s.working(); slices.Contains(got, elsewhere.Process.Pid) {
		t.Errorf("working() = %v has %d, which works elsewhere", got, elsewhere.Process.Pid)
	}
	s.rec.BinDir = t.TempDir()
	if got := s.working(); len(got) != 0 {
		t.Errorf("with other programs: working() = %v", got)
	}
}
