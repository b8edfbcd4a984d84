package timing_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/postgres"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/workload"
)

// fakeClock is a clock that only moves when a query takes time.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// answers is a workload whose queries take the times the test scripts on
// a fake clock: times[q][n] is query q's n-th try, a negative time fails
// it, and a query named "sleep" waits until its context ends.
type answers struct {
	clock *fakeClock
	times map[string][]time.Duration
	order []string
	tries map[string]int
}

func (a *answers) Meta() workload.Meta {
	return workload.Meta{Name: "answers", Version: "1", New: func() workload.Workload { return a }}
}
func (a *answers) Flags() *pflag.FlagSet { return pflag.NewFlagSet("answers", pflag.ContinueOnError) }
func (a *answers) Ops() []workload.Op {
	ops := []workload.Op{{Name: "unused"}}
	for _, q := range a.order {
		ops = append(ops, workload.Op{Name: q})
	}
	return ops
}
func (a *answers) Tables(engine.Dialect) []workload.Table { return nil }
func (a *answers) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return nil, errors.New("the timing model makes no workers")
}
func (a *answers) AnswerOps() ([]string, error) { return a.order, nil }
func (a *answers) Answer(ctx context.Context, c engine.Conn, q string) ([][]string, error) {
	if c == nil {
		return nil, errors.New("no connection")
	}
	if err := c.Ping(ctx); err != nil {
		return nil, err
	}
	n := a.tries[q]
	a.tries[q]++
	if q == "sleep" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	d := a.times[q][n]
	if d < 0 {
		return nil, errors.New("relation does not exist")
	}
	a.clock.now = a.clock.now.Add(d)
	return [][]string{{q, "1"}, {"z", "2"}}, nil
}

type tryLog struct{ tries []timing.TryEvent }

func (o *tryLog) OnTry(e timing.TryEvent) { o.tries = append(o.tries, e) }

func triesConfig(tries int) timing.Analytic {
	return timing.Analytic{Tries: &tries}
}

// open opens an embedded SQLite target: the tries' connections.
func open(t testing.TB) engine.Engine {
	t.Helper()
	eng, err := engine.Open(context.Background(), testdb.SQLite(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

func secondsOf(t result.Try) any {
	if t.S == nil {
		return nil
	}
	return *t.S
}

// Each query runs --tries times on one connection; the first try is
// lukewarm on a target dbarena cannot restart, the others hot, and the
// hot time is the best of them; a failed try has no time and its error,
// and the run goes on.
func TestTriesProtocol(t *testing.T) {
	eng := open(t)
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a := &answers{clock: clock, order: []string{"A", "B"}, tries: map[string]int{}, times: map[string][]time.Duration{
		"A": {3 * time.Second, 2 * time.Second, 1500 * time.Millisecond},
		"B": {time.Second, -1, 4 * time.Second},
	}}
	obs := &tryLog{}
	cfg := triesConfig(3)
	cfg.OnTry = obs.OnTry
	run, err := timing.RunTries(context.Background(), eng, a, cfg, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != result.StatusComplete || run.Tries == nil || run.Tries.Count != 3 {
		t.Fatalf("run: status %s, tries %+v", run.Status, run.Tries)
	}
	want := map[string][]any{"A": {3.0, 2.0, 1.5}, "B": {1.0, nil, 4.0}}
	for _, q := range run.Tries.Queries {
		if len(q.Tries) != 3 {
			t.Fatalf("query %s: %d tries, want 3", q.Name, len(q.Tries))
		}
		for i, tr := range q.Tries {
			label := result.LabelHot
			if i == 0 {
				label = result.LabelLukewarm
			}
			if tr.Label != label {
				t.Errorf("query %s try %d: label %q, want %q", q.Name, i+1, tr.Label, label)
			}
			if got := secondsOf(tr); got != want[q.Name][i] {
				t.Errorf("query %s try %d: %v s, want %v", q.Name, i+1, got, want[q.Name][i])
			}
			if tr.S != nil && (tr.Rows != 2 || len(tr.Hash) != 32 || tr.Error != "") {
				t.Errorf("query %s try %d: rows %d hash %q error %q", q.Name, i+1, tr.Rows, tr.Hash, tr.Error)
			}
		}
	}
	qa, _ := run.Tries.Query("A")
	if c, h := qa.Cold(), qa.Hot(); c == nil || *c != 3 || h == nil || *h != 1.5 {
		t.Errorf("A: cold %v hot %v, want 3 and 1.5 (the best of the later tries)", c, h)
	}
	qb, _ := run.Tries.Query("B")
	if b := qb.Tries[1]; b.S != nil || b.Error != "relation does not exist" || b.Hash != "" {
		t.Errorf("B's failed try: %+v, want no time and its error", b)
	}
	if h := qb.Hot(); h == nil || *h != 4 {
		t.Errorf("B: hot %v, want 4 (the one later try that succeeded)", h)
	}
	if len(obs.tries) != 6 || obs.tries[4].Query != "B" || obs.tries[4].N != 2 || obs.tries[4].Of != 3 {
		t.Errorf("observer saw %+v", obs.tries)
	}
	// The usual figures count the successful tries, the failed one as an
	// error of its op.
	if run.Ops[1].Name != "A" || run.Ops[1].Count != 3 || run.Ops[2].Count != 2 || run.Ops[2].Errors != 1 || run.Transactions != 5 {
		t.Errorf("ops %+v, transactions %d", run.Ops, run.Transactions)
	}
	if run.DurationS != 11.5 {
		t.Errorf("duration %v s, want 11.5 (the sum of the tries on the fake clock)", run.DurationS)
	}
}

// With a Cold hook (a managed server) each query's first try runs after
// it, on a new connection, with the label it gives.
func TestTriesCold(t *testing.T) {
	eng := open(t)
	clock := &fakeClock{now: time.Now()}
	a := &answers{clock: clock, order: []string{"A", "B"}, tries: map[string]int{}, times: map[string][]time.Duration{
		"A": {time.Second, time.Second}, "B": {time.Second, time.Second},
	}}
	cfg := triesConfig(2)
	var colds []int
	cfg.Cold = func(context.Context) (string, error) {
		colds = append(colds, a.tries["A"]+a.tries["B"])
		return result.LabelColdCacheKept, nil
	}
	run, err := timing.RunTries(context.Background(), eng, a, cfg, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if len(colds) != 2 || colds[0] != 0 || colds[1] != 2 {
		t.Errorf("Cold called before tries %v, want before each query's first: [0 2]", colds)
	}
	for _, q := range run.Tries.Queries {
		if q.Tries[0].Label != result.LabelColdCacheKept || q.Tries[1].Label != result.LabelHot {
			t.Errorf("query %s: labels %q, %q", q.Name, q.Tries[0].Label, q.Tries[1].Label)
		}
	}

	cfg.Cold = func(context.Context) (string, error) { return "", errors.New("restart failed") }
	run, err = timing.RunTries(context.Background(), eng, a, cfg, clock.Now)
	if err == nil || !strings.Contains(err.Error(), "before query A's first try: restart failed") || run.Status != result.StatusFailed {
		t.Errorf("a failed restart: %v, status %s", err, run.Status)
	}
}

// A try that runs past --query-timeout is cancelled and recorded as
// failed, with no time, and the next try runs on a new connection.
func TestTriesQueryTimeout(t *testing.T) {
	eng := open(t)
	clock := &fakeClock{now: time.Now()}
	a := &answers{clock: clock, order: []string{"sleep", "A"}, tries: map[string]int{}, times: map[string][]time.Duration{"A": {time.Second}}}
	cfg := triesConfig(1)
	cfg.QueryTimeout = 20 * time.Millisecond
	run, err := timing.RunTries(context.Background(), eng, a, cfg, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	s := run.Tries.Queries[0].Tries[0]
	if s.S != nil || !strings.Contains(s.Error, "timed out after 20ms (--query-timeout)") {
		t.Errorf("the timed-out try: %+v", s)
	}
	if a := run.Tries.Queries[1].Tries[0]; a.S == nil || *a.S != 1 {
		t.Errorf("the try after it: %+v", a)
	}
	if run.Tries.QueryTimeoutS != 0.02 {
		t.Errorf("query_timeout_s = %v", run.Tries.QueryTimeoutS)
	}
}

// sleeper is a workload of two queries on PostgreSQL: "sleep" runs
// pg_sleep for a second, "one" selects a row.
type sleeper struct{ answers }

func (s *sleeper) AnswerOps() ([]string, error) { return []string{"sleep", "one"}, nil }
func (s *sleeper) Ops() []workload.Op           { return []workload.Op{{Name: "sleep"}, {Name: "one"}} }
func (s *sleeper) Answer(ctx context.Context, c engine.Conn, q string) ([][]string, error) {
	sc, err := engine.SQL(c)
	if err != nil {
		return nil, err
	}
	text := "SELECT 1"
	if q == "sleep" {
		text = "SELECT pg_sleep(1)::text"
	}
	var rows [][]string
	err = sc.QueryRows(ctx, text, nil, func(vals []any) error {
		rows = append(rows, []string{fmt.Sprint(vals[0])})
		return nil
	})
	return rows, err
}

// On PostgreSQL, a query that sleeps past --query-timeout is cancelled and
// recorded as failed, every try of it, and the query after it runs.
func TestTriesQueryTimeoutPostgres(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, testdb.Postgres(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	tries := 2
	cfg := timing.Analytic{Tries: &tries, QueryTimeout: 100 * time.Millisecond}
	run, err := timing.RunTries(ctx, eng, &sleeper{}, cfg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range run.Tries.Queries[0].Tries {
		if tr.S != nil || !strings.Contains(tr.Error, "query sleep timed out after 100ms") {
			t.Errorf("sleep try %d: %v s, error %q: want null, timed out", i+1, secondsOf(tr), tr.Error)
		}
	}
	for i, tr := range run.Tries.Queries[1].Tries {
		if tr.S == nil || tr.Rows != 1 {
			t.Errorf("one try %d: %+v", i+1, tr)
		}
	}
	if run.Ops[0].Errors != 2 || run.Ops[0].Count != 0 || run.Status != result.StatusComplete {
		t.Errorf("ops %+v, status %s", run.Ops, run.Status)
	}
}

// Ctrl-C during a try ends the run as interrupted with the tries done so
// far; the try it cut short is not recorded as failed.
func TestTriesInterrupted(t *testing.T) {
	eng := open(t)
	clock := &fakeClock{now: time.Now()}
	a := &answers{clock: clock, order: []string{"A", "sleep"}, tries: map[string]int{}, times: map[string][]time.Duration{"A": {time.Second, time.Second}}}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := triesConfig(2)
	cfg.OnTry = func(e timing.TryEvent) {
		if e.Query == "A" && e.N == 2 {
			cancel() // the next query, sleep, waits until this ends it
		}
	}
	run, err := timing.RunTries(ctx, eng, a, cfg, clock.Now)
	if !errors.Is(err, timing.ErrInterrupted) || run == nil || run.Status != result.StatusInterrupted {
		t.Fatalf("run %v, err %v: want interrupted", run, err)
	}
	if len(run.Tries.Queries) != 2 || len(run.Tries.Queries[0].Tries) != 2 || len(run.Tries.Queries[1].Tries) != 0 {
		t.Errorf("tries kept: %+v", run.Tries.Queries)
	}
}

// A run of the analytic timing model whose every try failed (each ran
// past --query-timeout) ends failed, with ErrEveryTryFailed, keeping
// every try; one with a try that answered is complete.
func TestEveryTryFailed(t *testing.T) {
	eng := open(t)
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a := &answers{clock: clock, order: []string{"sleep", "B"}, tries: map[string]int{}, times: map[string][]time.Duration{"B": {-1, -1}}}
	cfg := triesConfig(2)
	cfg.QueryTimeout = time.Millisecond
	run, err := timing.RunTries(context.Background(), eng, a, cfg, clock.Now)
	if !errors.Is(err, timing.ErrEveryTryFailed) || run == nil || run.Status != result.StatusFailed || run.Error != err.Error() {
		t.Fatalf("err %v, run %+v: want %v and status failed", err, run, timing.ErrEveryTryFailed)
	}
	if !strings.Contains(err.Error(), "all 4 tries") || len(run.Tries.Queries) != 2 || len(run.Tries.Queries[0].Tries) != 2 || run.Errors != 4 {
		t.Errorf("error %q, tries %+v, %d errors", err, run.Tries, run.Errors)
	}
	// A timeout a loaded machine cannot miss for B, which answers at
	// once (1 ms could end before its query starts).
	cfg.QueryTimeout = 250 * time.Millisecond
	a = &answers{clock: clock, order: []string{"sleep", "B"}, tries: map[string]int{}, times: map[string][]time.Duration{"B": {-1, time.Second}}}
	if run, err := timing.RunTries(context.Background(), eng, a, cfg, clock.Now); err != nil || run.Status != result.StatusComplete {
		t.Errorf("one try answered: err %v, status %s, want complete", err, run.Status)
	}
}

// Define is the test workload's Spec, made of its methods.
func (r *answers) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	s.Answers = &workload.Answers{Ops: r.AnswerOps, Answer: r.Answer}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r *answers) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}

// Define is the test workload's Spec, made of its methods.
func (r *sleeper) Define() workload.Spec {
	s := r.answers.Define()
	s.Ops = r.Ops()
	s.Answers = &workload.Answers{Ops: r.AnswerOps, Answer: r.Answer}
	return s
}
