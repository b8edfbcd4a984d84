package payments_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	mopts "go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/payments"
	"github.com/dbarena/dbarena/workload/payments/internal/paymentstest"
	// The implementation for MongoDB, for the mongodb cases.
	_ "github.com/dbarena/dbarena/workload/payments/mongo"
)

// The tests below transfer on real databases from internal/testdb, SQL
// engines and MongoDB alike, through the registered workload and the
// implementation workload.ForFamily picks for each.

// bind is w's implementation for e's engine family.
func bind(t *testing.T, w workload.Workload, e engine.Engine) workload.Workload {
	t.Helper()
	impl, err := workload.ForFamily(w, e.Dialect())
	if err != nil {
		t.Fatal(err)
	}
	return impl
}

// check runs w's checks on a connection of e.
func check(t *testing.T, ctx context.Context, w workload.Workload, e engine.Engine, c engine.Conn) ([]workload.Problem, error) {
	t.Helper()
	return bind(t, w, e).Define().Check(ctx, c)
}

// cents is c cents as a Decimal128 of scale 2, as the collections hold
// money.
func cents(t *testing.T, c string) bson.Decimal128 {
	t.Helper()
	d, err := bson.ParseDecimal128(c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

type testDB struct {
	name   string
	target func(t *testing.T) engine.Target
	// deadlocks: concurrent opposite transfers deadlock (row locks), so
	// without --lock-order there are retries and with it none;
	// conflicts: two open transactions writing one account conflict
	// whatever the order (MongoDB), so there are retries either way;
	// procedures: the engine has --mode procedure.
	deadlocks, conflicts, procedures bool
	// corruptions break one invariant each; Check must name it.
	corruptions []corruption
	// maxRetries is the engine's own --max-retries for the runs (nil:
	// the default).
	maxRetries *int
}

type corruption struct {
	what  string
	apply func(t *testing.T, ctx context.Context, c engine.Conn)
	want  string // the Problem's Check
}

// sqlCorruptions are the SQL engines' corruptions (a negative balance is
// refused by the CHECK constraint).
var sqlCorruptions = []corruption{
	{"one balance + 1", sqlExec("UPDATE accounts SET balance = balance + 1 WHERE id = 1"), "total balance"},
	{"a transfer from a missing account", sqlExec("INSERT INTO transfers (card_id, from_account, to_account, user_id, amount, created_at) SELECT 1, 1, 999999, 1, 1, created_at FROM transfers WHERE id = (SELECT MAX(id) FROM transfers)"), "transfers reference accounts"},
}

func sqlExec(sql string) func(t *testing.T, ctx context.Context, c engine.Conn) {
	return func(t *testing.T, ctx context.Context, c engine.Conn) {
		t.Helper()
		sc, err := engine.SQL(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// mongoCorruptions go through the driver. The validator refuses a
// negative balance, so that one bypasses it (after checking it refuses).
var mongoCorruptions = []corruption{
	{"one balance + 0.01", func(t *testing.T, ctx context.Context, c engine.Conn) {
		mongoUpdate(t, ctx, c, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: cents(t, "0.01")}}}}, false)
	}, "total balance"},
	{"a negative balance", func(t *testing.T, ctx context.Context, c engine.Conn) {
		set := bson.D{{Key: "$set", Value: bson.D{{Key: "balance", Value: cents(t, "-1.00")}}}}
		if _, err := c.(*mongo.Conn).DB().Collection("accounts").UpdateOne(ctx, bson.D{{Key: "_id", Value: int64(2)}}, set); err == nil {
			t.Errorf("the accounts validator let a negative balance in")
		}
		mongoUpdate(t, ctx, c, set, true)
	}, "no negative balance"},
	{"a balance as a double", func(t *testing.T, ctx context.Context, c engine.Conn) {
		mongoUpdate(t, ctx, c, bson.D{{Key: "$set", Value: bson.D{{Key: "balance", Value: 3.5}}}}, false)
	}, "balance type"},
	{"a transfer to a missing account", func(t *testing.T, ctx context.Context, c engine.Conn) {
		_, err := c.(*mongo.Conn).DB().Collection("transfers").InsertOne(ctx, bson.D{
			{Key: "card_id", Value: int64(1)}, {Key: "from_account", Value: int64(1)}, {Key: "to_account", Value: int64(999999)},
			{Key: "user_id", Value: int64(1)}, {Key: "amount", Value: cents(t, "1.00")}, {Key: "created_at", Value: bson.NewDateTimeFromTime(time.Now())},
		})
		if err != nil {
			t.Fatal(err)
		}
	}, "transfers reference accounts"},
}

// mongoUpdate applies update to account 3 (account 2 for a bypass).
func mongoUpdate(t *testing.T, ctx context.Context, c engine.Conn, update bson.D, bypass bool) {
	t.Helper()
	id := int64(3)
	opts := mopts.UpdateOne()
	if bypass {
		id = 2
		opts.SetBypassDocumentValidation(true)
	}
	res, err := c.(*mongo.Conn).DB().Collection("accounts").UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, update, opts)
	if err != nil || res.ModifiedCount != 1 {
		t.Fatalf("update %v: %v %v", update, res, err)
	}
}

var testDBs = []testDB{
	{"sqlite", func(t *testing.T) engine.Target { return testdb.SQLite(t) }, false, false, false, sqlCorruptions, nil},
	{"postgres", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) }, true, false, true, sqlCorruptions, nil},
	{"mysql", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.MySQL(t)) }, true, false, true, sqlCorruptions, nil},
	// A write conflict fails at once rather than waiting for the other
	// transaction: at 16 threads on 10 accounts a transfer can take more
	// than the default 10 retries.
	{"mongodb", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Mongo(t)) }, false, true, false, mongoCorruptions, ptr(1000)},
}

func ptr[T any](v T) *T { return &v }

// TestTransfersThenCheck runs 16 threads over 10 accounts: without
// --lock-order opposite transfers deadlock and are retried; with it they
// do not (on MongoDB two transactions writing one account conflict in
// either order: retries both times). Then the same in --mode procedure
// where the engine has it (with --lock-order a declined transfer has
// credited first: the procedure must take that back). Money is conserved
// every time, and the checks catch corruption.
func TestTransfersThenCheck(t *testing.T) {
	for _, db := range testDBs {
		t.Run(db.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, db.target(t))
			opts := []string{"--accounts", "10", "--users", "10", "--organizations", "2", "--initial-balance", "500"}
			w := paymentstest.Parse(t, opts...)
			if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			if probs, err := check(t, ctx, w, e, paymentstest.Connect(t, e)); err != nil || len(probs) > 0 {
				t.Fatalf("check after prepare: %v %v", probs, err)
			}
			for _, run := range []struct {
				mode      string
				lockOrder bool
			}{{payments.ModeClient, false}, {payments.ModeClient, true}, {payments.ModeProcedure, false}, {payments.ModeProcedure, true}} {
				if run.mode == payments.ModeProcedure && !db.procedures {
					continue
				}
				lockOrder := run.lockOrder
				if err := w.Define().Options.Set("lock-order", map[bool]string{false: "false", true: "true"}[lockOrder]); err != nil {
					t.Fatal(err)
				}
				if err := w.Define().Options.Set("mode", run.mode); err != nil {
					t.Fatal(err)
				}
				// Without --lock-order a deadlock needs two transfers to
				// interleave between their two updates, which a host busy
				// with other work can make rare in one 2 s run (in --mode
				// procedure the updates are microseconds apart): up to
				// five runs, with other seeds, must see one.
				var res *result.Run
				for attempt := range 5 {
					var err error
					res, err = runner.Run(ctx, e, w, runner.Config{Threads: 16, Duration: 2 * time.Second, Seed: uint64(3 + attempt),
						Retry: runner.RetryOverride{MaxRetries: db.maxRetries}}, nil)
					if err != nil {
						t.Fatalf("--lock-order=%v: %v", lockOrder, err)
					}
					if lockOrder || !(db.deadlocks || db.conflicts) || res.Retries > 0 {
						break
					}
					t.Logf("--mode %s --lock-order=false: no retry in run %d", run.mode, attempt+1)
				}
				tr, del := res.Ops[payments.OpTransfer], res.Ops[payments.OpDelete]
				t.Logf("--mode %s --lock-order=%v: %d transfers (%d declined), %d deletes, %d retries, %d errors", run.mode, lockOrder, tr.Count, tr.Rollbacks, del.Count, res.Retries, res.Errors)
				// Each worker deletes after every 20th of its committed
				// transfers. (On PostgreSQL without --lock-order most
				// transfers wait deadlock_timeout, 1 s, for the deadlock
				// detector: few commit.)
				committed := tr.Count - tr.Rollbacks
				if tr.Count == 0 || res.Errors != 0 || del.Count > committed/20 || (committed >= 2*20*16 && del.Count == 0) {
					t.Errorf("--lock-order=%v: %d transfers, %d deletes, %d errors", lockOrder, tr.Count, del.Count, res.Errors)
				}
				if (db.deadlocks || db.conflicts) && !lockOrder && res.Retries == 0 {
					t.Errorf("no deadlock or conflict retried without --lock-order (16 threads, 10 accounts)")
				}
				if lockOrder && !db.conflicts && res.Retries != 0 {
					t.Errorf("--lock-order: %d retries, want none", res.Retries)
				}
				if probs, err := check(t, ctx, w, e, paymentstest.Connect(t, e)); err != nil || len(probs) > 0 {
					t.Fatalf("--lock-order=%v: check: %v %v", lockOrder, probs, err)
				}
			}
			c := paymentstest.Connect(t, e)
			for _, tc := range db.corruptions {
				tc.apply(t, ctx, c)
				probs, err := check(t, ctx, w, e, c)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, p := range probs {
					names = append(names, p.Check)
				}
				if !slices.Contains(names, tc.want) {
					t.Errorf("after %s: problems %q, want %q", tc.what, names, tc.want)
				}
			}
			if _, err := load.Cleanup(ctx, e, w); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		})
	}
}

// TestStatementCounts drives one worker without contention: a committed
// transfer is 3 reads, 3 writes and 2 other (begin, commit) on every
// engine, a delete 2 reads and 1 write (on MongoDB a worker's first delete
// reads the smallest _id once more).
func TestStatementCounts(t *testing.T) {
	for _, db := range testDBs {
		if db.name == "sqlite" || db.name == "mysql" {
			continue // the same SQL worker as postgres
		}
		t.Run(db.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, db.target(t))
			w := paymentstest.Parse(t, "--accounts", "100", "--users", "10", "--organizations", "2", "--initial-balance", "1000000")
			if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: 1}); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			q := &workload.Queries{}
			wrun, err := bind(t, w, e).Open(ctx, workload.RunEnv{Engine: e.Dialect().Capabilities(), Dialect: e.Dialect()})
			if err != nil {
				t.Fatal(err)
			}
			k, err := wrun.NewWorker(ctx, paymentstest.Connect(t, e), workload.WorkerEnv{Seed: 7, Queries: q})
			if err != nil {
				t.Fatal(err)
			}
			var ops [2]int64
			for i := 0; i < 63; i++ {
				op, err := k.Next(ctx)
				if err != nil {
					t.Fatalf("op %d: %v", i, err)
				}
				ops[op]++
			}
			tr, del := ops[payments.OpTransfer], ops[payments.OpDelete]
			if tr != 60 || del != 3 {
				t.Fatalf("%d transfers, %d deletes; want 60, 3", tr, del)
			}
			want := workload.Queries{Reads: 3*tr + 2*del, Writes: 3*tr + del, Other: 2 * tr}
			if db.name == "mongodb" {
				want.Reads++
			}
			if *q != want {
				t.Errorf("statements %+v, want %+v", *q, want)
			}
			if probs, err := check(t, ctx, w, e, paymentstest.Connect(t, e)); err != nil || len(probs) > 0 {
				t.Fatalf("check: %v %v", probs, err)
			}
		})
	}
}
