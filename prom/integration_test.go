package prom_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/postgres"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/prom"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/sysmon"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/oltp"
)

// A run served on /metrics: scrapes during the run parse with
// Prometheus's text parser and show the run's threads; a scrape at its end
// has counters equal to the result file's counts, per operation, and the
// server metrics the result file's intervals have.
func TestScrapeMatchesResultFile(t *testing.T) {
	for name, target := range map[string]func(t *testing.T) engine.Target{
		"sqlite":   func(t *testing.T) engine.Target { return testdb.SQLite(t) },
		"postgres": func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			tg := target(t)
			eng, err := engine.Open(ctx, tg, engine.Options{ConnectTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			s, err := session.Open(ctx, session.Options{Engine: eng, Target: tg, PrepareOnFirstUse: true, Tool: result.Tool{Name: "dbarena", Version: "test"}})
			if err != nil {
				eng.Close()
				t.Fatal(err)
			}
			defer s.Close()
			m, _ := workload.Lookup("oltp_read_write")
			w := m.New()
			if err := w.Define().Options.Parse([]string{"--tables=1", "--table-size=200"}); err != nil {
				t.Fatal(err)
			}
			if err := s.EnsurePrepared(ctx, w); err != nil {
				t.Fatal(err)
			}

			e, err := prom.Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			var mu sync.Mutex
			var during []map[string]*dto.MetricFamily
			var scrapeErr error
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					case <-time.After(150 * time.Millisecond):
					}
					f, err := tryScrape(e.Addr())
					mu.Lock()
					if err != nil && scrapeErr == nil {
						scrapeErr = err
					}
					if err == nil {
						during = append(during, f)
					}
					mu.Unlock()
				}
			}()
			var lines strings.Builder
			cfg := runner.Config{Threads: 2, Warmup: 500 * time.Millisecond, Duration: 1500 * time.Millisecond, ReportInterval: 250 * time.Millisecond, Seed: 3, TolerateErrors: true}
			labels := prom.Labels{Target: tg.Label, Workload: "oltp_read_write", Run: "threads=2"}
			file, err := s.Measure(ctx, w, []runner.Config{cfg}, session.Hooks{
				Observer: e.Observer(&report.Lines{W: &lines}),
				Before:   func(cfg runner.Config) { e.Begin(labels, cfg.Threads) },
			})
			close(stop)
			wg.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if scrapeErr != nil {
				t.Fatalf("a scrape during the run: %v", scrapeErr)
			}
			if len(during) == 0 {
				t.Fatal("no scrape during the run")
			}
			sawThreads := false
			served := map[string]bool{}
			for _, f := range during {
				if sum(f, "dbarena_threads", nil) == 2 {
					sawThreads = true
				}
				for n := range f {
					served[n] = true
				}
			}
			if !sawThreads {
				t.Error("no scrape during the run showed 2 threads")
			}

			run := file.Runs[0]
			end := scrape(t, e.Addr())
			measured := map[string]string{"phase": "measured", "target": tg.Label, "run": "threads=2"}
			for _, c := range []struct {
				name string
				want int64
			}{
				{"dbarena_transactions_total", run.Transactions},
				{"dbarena_errors_total", run.Errors},
				{"dbarena_retries_total", run.Retries},
				{"dbarena_rollbacks_total", run.Rollbacks},
				{"dbarena_reconnects_total", run.Reconnects},
				{"dbarena_latency_seconds", run.Transactions},
			} {
				if got := sum(end, c.name, measured); got != float64(c.want) {
					t.Errorf("%s = %v, result file %d", c.name, got, c.want)
				}
			}
			for kind, want := range map[string]int64{"read": run.Reads, "write": run.Writes, "other": run.Other} {
				if got := sum(end, "dbarena_queries_total", map[string]string{"phase": "measured", "kind": kind}); got != float64(want) {
					t.Errorf("queries %s = %v, result file %d", kind, got, want)
				}
			}
			for _, op := range run.Ops {
				if got := sum(end, "dbarena_transactions_total", map[string]string{"phase": "measured", "op": op.Name}); got != float64(op.Count) {
					t.Errorf("op %s: %v transactions, result file %d", op.Name, got, op.Count)
				}
			}
			if run.Transactions == 0 || sum(end, "dbarena_transactions_total", map[string]string{"phase": "warmup"}) <= 0 {
				t.Errorf("%d transactions measured, %v in the warm-up", run.Transactions, sum(end, "dbarena_transactions_total", map[string]string{"phase": "warmup"}))
			}
			// Every server metric an interval of the file has was served.
			for _, iv := range run.Intervals {
				for k := range iv.Server {
					if k != sysmon.IntervalKey && !served["dbarena_"+k] {
						t.Errorf("server metric %s never served", k)
					}
				}
			}
			t.Logf("%d families served during the run", len(served))
			if name == "postgres" && !anyPrefix(served, "dbarena_pg_") {
				t.Errorf("no PostgreSQL metric served: %v", served)
			}
		})
	}
}

func anyPrefix(m map[string]bool, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}
