package session_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/postgres"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/docolap"
)

func docolap(t *testing.T, args ...string) workload.Workload {
	t.Helper()
	m, ok := workload.Lookup("docolap")
	if !ok {
		t.Fatal("docolap is not registered")
	}
	w := m.New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	return w
}

// On a managed server the first try of each query is cold: the server is
// restarted before it (a new process, its data kept), with the OS page
// cache dropped where that is permitted; the later tries are hot, and
// every try gives the same answer.
func TestTriesColdOnManagedServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	home := t.TempDir()
	for _, d := range []string{home, filepath.Dir(home)} { // the server's user reads below it
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := server.Start(ctx, server.Spec{Kind: postgres.ServerKind, Home: home, Knobs: []server.Knob{{Name: "shared_buffers", Value: "16MB"}}})
	if err != nil {
		t.Fatalf("starting a managed PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	s := open(t, srv.Target(), session.Options{PrepareOnFirstUse: true, Managed: srv, NoMonitor: true})
	w := docolap(t, "--events=3000", "--query=B,C")
	if err := s.EnsurePrepared(ctx, w); err != nil {
		t.Fatal(err)
	}
	cfg := runner.DefaultConfig()
	tries := 2
	cfg.Tries = &tries
	var pids []int
	cfg.OnTry = func(e timing.TryEvent) {
		if e.N == 1 {
			pids = append(pids, srv.PID())
		}
	}
	before := srv.PID()
	file, err := s.Measure(ctx, w, []runner.Config{cfg}, session.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	tr := file.Runs[0].Tries
	if tr == nil || len(tr.Queries) != 2 {
		t.Fatalf("tries = %+v", tr)
	}
	for _, q := range tr.Queries {
		first := q.Tries[0].Label
		t.Logf("query %s: first try %s", q.Name, first)
		if first != result.LabelCold && first != result.LabelColdCacheKept {
			t.Errorf("query %s: first try %q, want cold", q.Name, first)
		}
		if q.Tries[1].Label != result.LabelHot || q.Cold() == nil || q.Hot() == nil {
			t.Errorf("query %s: tries %+v", q.Name, q.Tries)
		}
		if _, _, differ, ok := q.Answer(); !ok || differ {
			t.Errorf("query %s: answers ok %v, differ %v", q.Name, ok, differ)
		}
	}
	if len(pids) != 2 || pids[0] == before || pids[1] == pids[0] {
		t.Errorf("server processes %d, then %v: want a new one before each query's first try", before, pids)
	}
	// The server still serves after the run, its data kept.
	eng, err := engine.Open(ctx, srv.Target(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	c, err := eng.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Ping(ctx); err != nil {
		t.Error(err)
	}
}
