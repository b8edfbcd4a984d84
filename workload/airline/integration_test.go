package airline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/airline/internal/airlinetest"
)

// The tests below book against real databases from internal/testdb: a
// fresh SQLite file, a fresh schema on the PostgreSQL test server and a
// fresh database on the MariaDB test server. workload/airline/mongo's
// tests run the same on the MongoDB test server.

type testDB struct {
	name   string
	target func(t *testing.T) engine.Target
	// isolation is the level that makes bookings of one (schedule, day)
	// conflict; retries is whether the run must have retried.
	isolation string
	retries   bool
}

var testDBs = []testDB{
	{"sqlite", func(t *testing.T) engine.Target { return testdb.SQLite(t) }, engine.Serializable, false},
	{"postgres", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) }, engine.Serializable, true},
	{"mysql", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.MySQL(t)) }, engine.Serializable, false},
}

// TestBookThenCheck prepares a small schedule table (so that 16 threads
// collide on a few audit rows; --day-range is 1), books under the
// conflicting isolation level with transactions, checks the invariants,
// then corrupts the data and expects the checks to name what broke.
func TestBookThenCheck(t *testing.T) {
	for _, db := range testDBs {
		t.Run("engine="+db.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, db.target(t))
			w := parse(t, "--schedules", "20", "--aircraft", "5")
			if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: loadThreads}); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			res, err := runner.Run(ctx, e, w, runner.Config{Threads: 16, Duration: 2 * time.Second, Seed: 5, Isolation: db.isolation}, nil)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			t.Logf("%s %s: %d bookings, %d retries (%.2f%%), %d errors, p99 %.2f ms", db.name, db.isolation, res.Transactions, res.Retries, res.RetryPct, res.Errors, res.LatencyMS.P99)
			airlinetest.WantRun(t, res, db.retries, db.isolation)
			c := airlinetest.Connect(t, e)
			seats, occupied := booked(t, c)
			// Every committed booking, and nothing else, is in the tables.
			airlinetest.WantBooked(t, res, seats, occupied)
			if probs, err := w.Define().Check(ctx, c); err != nil || len(probs) > 0 {
				t.Fatalf("check after the run: %v %v", probs, err)
			}

			for _, tc := range corruptions {
				tc.do(t, c)
				probs, err := w.Define().Check(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				airlinetest.WantProblem(t, tc.name, probs, tc.want, CheckAuditCounts)
			}
			if _, err := load.Cleanup(ctx, e, w); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		})
	}
}

// A level the engine lacks is refused before the run, naming --isolation.
func TestIsolationRefused(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.SQLite(t))
	w := parse(t, "--schedules", "5", "--aircraft", "2")
	if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{}); err != nil {
		t.Fatal(err)
	}
	_, err := runner.Run(ctx, e, w, runner.Config{Threads: 1, Duration: time.Second, Isolation: engine.ReadCommitted}, nil)
	var oe *workload.OptionError
	if !errors.As(err, &oe) || oe.Flag != "isolation" || !strings.Contains(err.Error(), "serializable") {
		t.Errorf("run with --isolation read-committed on sqlite: %v; want an OptionError naming --isolation", err)
	}
}

// A value of --transactions that is neither on nor off, and an isolation
// level without transactions, are refused naming the flag and its value;
// so is --transactions off on an SQL engine, before the run.
// (workload/airline/mongo's tests refuse what MongoDB lacks.)
func TestTransactionsAndIsolationRefused(t *testing.T) {
	ctx := context.Background()
	cfg := runner.Config{Threads: 1, Duration: time.Second}

	t.Run("transactions=maybe", func(t *testing.T) {
		errs := parse(t, "--transactions", "maybe").Define().Validate()
		if len(errs) != 1 {
			t.Fatalf("errors %v, want one", errs)
		}
		airlinetest.WantOptionError(t, errs[0], "transactions", "maybe")
	})
	t.Run("transactions=off/isolation=serializable", func(t *testing.T) {
		// Refused before any work: nothing needs to be prepared.
		iso := cfg
		iso.Isolation = engine.Serializable
		_, err := runner.Run(ctx, enginetest.Open(t, testdb.SQLite(t)), parse(t, "--transactions", "off"), iso, nil)
		airlinetest.WantOptionError(t, err, "isolation", "serializable")
		if err != nil && !strings.Contains(err.Error(), "needs --transactions on") {
			t.Errorf("%v does not say why", err)
		}
	})
	for _, db := range testDBs[:2] { // sqlite, postgres
		t.Run("engine="+db.name+"/transactions=off", func(t *testing.T) {
			e := enginetest.Open(t, db.target(t))
			w := parse(t, "--schedules", "5", "--aircraft", "2", "--transactions", "off")
			if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: loadThreads}); err != nil {
				t.Fatal(err)
			}
			_, err := runner.Run(ctx, e, w, cfg, nil)
			airlinetest.WantOptionError(t, err, "transactions", "off")
		})
	}
}
