package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
)

// binary is dbarena compiled once for the tests of this package.
var binary struct {
	once sync.Once
	dir  string
	path string
	out  []byte
	err  error
}

// TestMain removes the compiled binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// buildBinary compiles dbarena once for the tests of this package and
// returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "dbarena-bin-")
		if binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "dbarena")
		cmd := exec.Command("go", "build", "-o", binary.path, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		binary.out, binary.err = cmd.CombinedOutput()
	})
	if binary.err != nil {
		t.Fatalf("go build: %v\n%s", binary.err, binary.out)
	}
	return binary.path
}

// A real SIGINT (Ctrl-C) during a run: the process prints the summary,
// writes the result file marked interrupted and exits with 130.
func TestSIGINTWritesInterruptedResult(t *testing.T) {
	bin := buildBinary(t)
	home := t.TempDir()
	env := append(os.Environ(), "DBARENA_HOME="+home)

	prep := exec.Command(bin, "prepare", "oltp_point_select", "--table-size", "2000")
	prep.Env = env
	if out, err := prep.CombinedOutput(); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out)
	}

	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr syncBuffer
	run := exec.Command(bin, "run", "oltp_point_select", "--table-size", "2000", "--threads", "2", "--time", "120s", "--out", out)
	run.Env, run.Stdout, run.Stderr = env, &stdout, &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the first live line, then press Ctrl-C.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stdout.String(), "thds: 2") {
		if time.Now().After(deadline) {
			run.Process.Kill()
			t.Fatalf("no live line after 30 s:\n%s%s", stdout.String(), stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := run.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := run.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit: %v, want code 130\n%s%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "SQL statistics") {
		t.Errorf("no summary after Ctrl-C:\n%s", stdout.String())
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != result.StatusInterrupted || len(f.Runs) != 1 || f.Runs[0].Transactions == 0 || f.Runs[0].Status != result.StatusInterrupted {
		t.Errorf("result: status %s, %d runs", f.Status, len(f.Runs))
	}
	// Nothing half-written next to it.
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("output directory holds %d files, want only the result", len(entries))
	}
}

// A real SIGINT (or SIGTERM) while prepare loads PostgreSQL: the process
// exits with 130, says it was interrupted and which tables it dropped
// again, and leaves nothing of what it created behind.
func TestSIGINTDuringPrepareRollsBack(t *testing.T) {
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { prepareInterrupted(t, bin, sig) })
	}
}

func prepareInterrupted(t *testing.T, bin string, sig syscall.Signal) {
	tg := testdb.Isolated(t, testdb.Postgres(t))
	ctx := context.Background()
	eng, err := engine.Open(ctx, tg, engine.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	c, err := eng.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, err := engine.SQL(c)
	if err != nil {
		t.Fatal(err)
	}
	// tables counts the tables of the isolated schema, dbarena's record
	// of what it created included.
	tables := func() int64 {
		var n int64
		if err := sc.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()", nil, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	var stdout, stderr syncBuffer
	prep := exec.Command(bin, "prepare", "oltp_read_write", "--tables", "4", "--table-size", "2000000", "--load-threads", "2", "--target", tg.URL.String())
	prep.Env = append(os.Environ(), "DBARENA_HOME="+t.TempDir(), "PGPASSWORD="+tg.Password.Reveal())
	prep.Stdout, prep.Stderr = &stdout, &stderr
	if err := prep.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until every table is created (and loading), then signal.
	deadline := time.Now().Add(60 * time.Second)
	for tables() < 5 {
		if time.Now().After(deadline) {
			prep.Process.Kill()
			t.Fatalf("the tables were not created after 60 s:\n%s%s", stdout.String(), stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := prep.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err = prep.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit: %v, want code 130\n%s%s", err, stdout.String(), stderr.String())
	}
	msg := stderr.String()
	t.Logf("stderr: %s", msg)
	for _, want := range []string{"interrupted", "dropped", "sbtest1", "sbtest4"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr %q lacks %q", msg, want)
		}
	}
	if n := tables(); n != 0 {
		t.Errorf("%d tables left behind after the interrupted prepare", n)
	}
}

// syncBuffer is a bytes.Buffer that the command's output copier and the
// test may use at the same time.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
