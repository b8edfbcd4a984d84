package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// On a managed server the first try of each query is cold as --cold
// says. The default restarts the server before it (a new process, its
// data kept) and leaves the OS page cache alone: the drop-caches file is
// never written (it empties the page cache of the whole host); only
// --cold drop-caches writes it; --cold none restarts nothing. The later
// tries are hot, and every try gives the same answer.
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
	drop := filepath.Join(t.TempDir(), "drop_caches")
	if err := os.WriteFile(drop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := open(t, srv.Target(), session.Options{PrepareOnFirstUse: true, Managed: srv, NoMonitor: true, DropCachesFile: drop})
	w := docolap(t, "--events=3000", "--query=B,C")
	if err := s.EnsurePrepared(ctx, w); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode, recorded, label string
		restarts, drops       bool
	}{
		{"", timing.ColdRestart, result.LabelColdCacheKept, true, false},
		{timing.ColdRestart, timing.ColdRestart, result.LabelColdCacheKept, true, false},
		{timing.ColdNone, timing.ColdNone, result.LabelLukewarm, false, false},
		{timing.ColdDropCaches, timing.ColdDropCaches, result.LabelCold, true, true},
	} {
		t.Run("cold="+tc.mode, func(t *testing.T) {
			if err := os.WriteFile(drop, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := runner.DefaultConfig()
			tries := 2
			cfg.Tries, cfg.ColdMode = &tries, tc.mode
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
			if got := file.Workload.Options["cold"]; got != tc.recorded {
				t.Errorf("the file records cold mode %q, want %q", got, tc.recorded)
			}
			tr := file.Runs[0].Tries
			if tr == nil || len(tr.Queries) != 2 {
				t.Fatalf("tries = %+v", tr)
			}
			for _, q := range tr.Queries {
				if first := q.Tries[0].Label; first != tc.label {
					t.Errorf("query %s: first try %q, want %q", q.Name, first, tc.label)
				}
				if q.Tries[1].Label != result.LabelHot || q.Cold() == nil || q.Hot() == nil {
					t.Errorf("query %s: tries %+v", q.Name, q.Tries)
				}
				if _, _, differ, ok := q.Answer(); !ok || differ {
					t.Errorf("query %s: answers ok %v, differ %v", q.Name, ok, differ)
				}
			}
			if len(pids) != 2 {
				t.Fatalf("server processes at the first tries %v: want 2", pids)
			}
			restarted := pids[0] != before && pids[1] != pids[0]
			kept := pids[0] == before && pids[1] == before
			switch {
			case tc.restarts && !restarted:
				t.Errorf("server processes %d, then %v: want a new one before each query's first try", before, pids)
			case !tc.restarts && !kept:
				t.Errorf("server processes %d, then %v: want the server never restarted", before, pids)
			}
			got, err := os.ReadFile(drop)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]string{true: "1\n", false: ""}[tc.drops]; string(got) != want {
				t.Errorf("the drop-caches file holds %q, want %q", got, want)
			}
		})
	}
	// The server still serves after the runs, its data kept.
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

// A cold mode the target cannot have is refused before any work, naming
// --cold and the target: restart or drop-caches on a target dbarena
// cannot restart, drop-caches where the page cache cannot be dropped.
func TestCheckCold(t *testing.T) {
	ro := filepath.Join(t.TempDir(), "missing", "drop_caches")
	for _, tc := range []struct {
		mode        string
		restartable bool
		file, want  string
	}{
		{"", false, ro, ""},
		{"none", false, ro, ""},
		{"restart", true, ro, ""},
		{"restart", false, ro, "--cold restart: target pg=postgres://h/db is not a managed server that dbarena can restart"},
		{"drop-caches", false, ro, "--cold drop-caches: target pg=postgres://h/db is not a managed server"},
		{"drop-caches", true, ro, "--cold drop-caches: "},
	} {
		t.Run(tc.mode+"/restartable="+strconv.FormatBool(tc.restartable), func(t *testing.T) {
			err := session.CheckCold(tc.mode, "pg=postgres://h/db", tc.restartable, tc.file)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckCold: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("CheckCold: %v, want %q", err, tc.want)
			}
		})
	}
}
