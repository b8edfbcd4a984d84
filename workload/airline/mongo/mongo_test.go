package mongo

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
	"github.com/dbarena/dbarena/workload/airline"
	"github.com/dbarena/dbarena/workload/airline/internal/airlinetest"
)

// The values of --transactions.
const (
	transactionsOn  = "on"
	transactionsOff = "off"
)

// mongoEngine opens a fresh database on the MongoDB test server.
func mongoEngine(t *testing.T) engine.Engine {
	t.Helper()
	return enginetest.Open(t, testdb.Isolated(t, testdb.Mongo(t)))
}

// loadThreads is the prepare's --load-threads in these tests: one on
// MongoDB, where the race detector reports a race inside the driver's
// struct codec cache (bson describeStruct) when two loaders' first
// insertMany run at once; it is not in this package.
const loadThreads = 1

// On MongoDB both modes book, count their statements as the SQL engines
// do and pass the check when every booking runs to its end. The default
// reference data spreads 4 threads over 15,000 schedules.
func TestMongoTransactionsOnOff(t *testing.T) {
	for _, mode := range []string{transactionsOn, transactionsOff} {
		t.Run("transactions="+mode, func(t *testing.T) {
			ctx := context.Background()
			e := mongoEngine(t)
			w := parse(t, "--transactions", mode)
			if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: loadThreads}); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			res, err := runner.Run(ctx, e, w, runner.Config{Threads: 4, Duration: 3 * time.Second, Seed: 3}, nil)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			t.Logf("mongodb, transactions %s, 4 threads: %.0f bookings/s, %d retries, %d errors, p50 %.2f ms, p99 %.2f ms",
				mode, res.TPS, res.Retries, res.Errors, res.LatencyMS.P50, res.LatencyMS.P99)
			if res.Transactions == 0 || res.Errors != 0 {
				t.Fatalf("%d bookings, %d errors", res.Transactions, res.Errors)
			}
			other := int64(2) // start and commit
			if mode == transactionsOff {
				other = 0
				if res.Retries != 0 {
					t.Errorf("%d retries without transactions", res.Retries)
				}
			}
			if res.Retries == 0 && (res.Reads != res.Transactions || res.Writes != 3*res.Transactions || res.Other != other*res.Transactions) {
				t.Errorf("%d bookings: %d reads, %d writes, %d other; want 1, 3 and %d per booking", res.Transactions, res.Reads, res.Writes, res.Other, other)
			}
			c := airlinetest.Connect(t, e)
			if seats, occupied := booked(t, c); seats < res.Transactions || seats > res.Transactions+4 || occupied != seats {
				t.Errorf("%d seats, %d occupied, %d bookings counted", seats, occupied, res.Transactions)
			}
			if probs, err := load.Check(ctx, e, w); err != nil || len(probs) > 0 {
				t.Fatalf("check: %v %v", probs, err)
			}
		})
	}
}

// An interrupted run cancels the bookings in flight at once. Each booking
// of the interrupted run sleeps 5 s (--booking-sleep), and the run is
// interrupted after 1.5 s, so every worker is inside its first booking:
// with transactions, before its commit; without, after its seat and
// payment and before the audit upsert. Aborted transactions leave nothing
// behind; bookings without transactions leave seats the audit does not
// count, and Check must say in how many (schedule, day) pairs. A first,
// complete run creates the audit documents of every pair (3 schedules,
// --day-range 1), so the lost increments show as disagreeing counts.
func TestMongoInterruptedBookings(t *testing.T) {
	const threads = 4
	for _, mode := range []string{transactionsOn, transactionsOff} {
		t.Run("transactions="+mode, func(t *testing.T) {
			ctx := context.Background()
			e := mongoEngine(t)
			data := []string{"--schedules", "3", "--aircraft", "2", "--transactions", mode}
			w := parse(t, data...)
			if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: loadThreads}); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			if _, err := runner.Run(ctx, e, w, runner.Config{Threads: threads, Duration: time.Second, Seed: 1}, nil); err != nil {
				t.Fatalf("first run: %v", err)
			}
			c := airlinetest.Connect(t, e)
			seats0, occupied0 := booked(t, c)
			if probs, err := load.Check(ctx, e, w); err != nil || len(probs) > 0 {
				t.Fatalf("check after the first run: %v %v", probs, err)
			}

			slow := parse(t, append(data, "--booking-sleep", "5s")...)
			rctx, interrupt := context.WithCancel(ctx)
			defer interrupt()
			stop := time.AfterFunc(1500*time.Millisecond, interrupt)
			defer stop.Stop()
			start := time.Now()
			// Bookings of one pair conflict with the transaction that holds
			// its audit document for 5 s and may run out of retries.
			res, err := runner.Run(rctx, e, slow, runner.Config{Threads: threads, Duration: time.Minute, Seed: 2, TolerateErrors: true}, nil)
			if !errors.Is(err, runner.ErrInterrupted) {
				t.Fatalf("interrupted run: %v, want %v", err, runner.ErrInterrupted)
			}
			if took := time.Since(start); took > 4*time.Second {
				t.Errorf("the interrupted run took %v: in-flight bookings were waited for", took)
			}
			if res.Transactions != 0 {
				t.Errorf("%d bookings completed within the first 1.5 s of 5 s bookings", res.Transactions)
			}

			seats, occupied := booked(t, c)
			probs, err := load.Check(ctx, e, w)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("transactions %s: %d seats, %d counted before; %d and %d after the interruption (%d retries, %d errors); problems %v",
				mode, seats0, occupied0, seats, occupied, res.Retries, res.Errors, probs)
			if occupied != occupied0 {
				t.Errorf("the audit counts went from %d to %d, want no change", occupied0, occupied)
			}
			if mode == transactionsOn {
				if seats != seats0 || len(probs) > 0 {
					t.Errorf("aborted transactions left %d seats (before: %d) and problems %v", seats, seats0, probs)
				}
				return
			}
			if seats != seats0+threads {
				t.Errorf("%d seats after the interruption, %d before: want one half-done booking per worker (%d)", seats, seats0, threads)
			}
			n := airlinetest.PairsInAll(t, probs, airline.CheckAuditCounts)
			if n < 1 || n > 3 {
				t.Errorf("check reports %d (schedule, day) pairs whose audit disagrees with the seats, want 1 to 3: %v", n, probs)
			}
			for _, p := range probs {
				if p.Check != airline.CheckAuditCounts {
					t.Errorf("unexpected problem %v", p)
				}
			}
		})
	}
}

// Isolation levels MongoDB does not have are refused before the run,
// naming the flag and its value; repeatable-read runs.
// (workload/airline's tests refuse --transactions off on SQL engines.)
func TestTransactionsAndIsolationRefused(t *testing.T) {
	ctx := context.Background()
	cfg := runner.Config{Threads: 1, Duration: time.Second}

	t.Run("transactions=off/isolation=serializable", func(t *testing.T) {
		// Refused before any work: nothing needs to be prepared.
		iso := cfg
		iso.Isolation = engine.Serializable
		_, err := runner.Run(ctx, mongoEngine(t), parse(t, "--transactions", "off"), iso, nil)
		airlinetest.WantOptionError(t, err, "isolation", "serializable")
		if err != nil && !strings.Contains(err.Error(), "needs --transactions on") {
			t.Errorf("%v does not say why", err)
		}
	})
	t.Run("engine=mongodb/isolation", func(t *testing.T) {
		e := mongoEngine(t)
		w := parse(t, "--schedules", "5", "--aircraft", "2")
		if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: loadThreads}); err != nil {
			t.Fatal(err)
		}
		for _, level := range []string{engine.Serializable, engine.ReadCommitted} {
			iso := cfg
			iso.Isolation = level
			_, err := runner.Run(ctx, e, parse(t, "--schedules", "5", "--aircraft", "2"), iso, nil)
			airlinetest.WantOptionError(t, err, "isolation", level)
			if err != nil && !strings.Contains(err.Error(), "snapshot isolation") {
				t.Errorf("--isolation %s: %v does not say what MongoDB has", level, err)
			}
		}
		iso := cfg
		iso.Isolation = engine.RepeatableRead
		res, err := runner.Run(ctx, e, parse(t, "--schedules", "5", "--aircraft", "2"), iso, nil)
		if err != nil || res.Transactions == 0 {
			t.Errorf("--isolation repeatable-read: %v", err)
		}
	})
}
