package payments

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/runner"
)

func parse(t *testing.T, args ...string) *Payments {
	t.Helper()
	w := New()
	if err := w.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestValidate(t *testing.T) {
	if errs := parse(t).Validate(); len(errs) != 0 {
		t.Errorf("defaults: %v", errs)
	}
	var msgs []string
	for _, e := range parse(t, "--accounts", "1", "--organizations", "5", "--users", "3", "--max-retries", "-2").Validate() {
		msgs = append(msgs, e.Error())
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{"--accounts 1: must be at least 2", "--users 3: must be at least --organizations (5)", "--max-retries -2"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
}

// Users and accounts are dealt round robin over the organizations; the
// issuing user Next picks always belongs to the card account's.
func TestIssuerBelongsToOrganization(t *testing.T) {
	w := parse(t, "--accounts", "50", "--users", "13", "--organizations", "4")
	b := base{w: w, r: newTestRand()}
	for i := 0; i < 2000; i++ {
		b.pick()
		in, org := b.in, w.orgOf(b.in.card)
		if in.issuer < 1 || in.issuer > 13 || w.orgOf(in.issuer) != org {
			t.Fatalf("card %d (organization %d): issuer %d of organization %d", in.card, org, in.issuer, w.orgOf(in.issuer))
		}
		if in.to == in.card || in.to < 1 || in.to > 50 || in.acquirer < 1 || in.acquirer > 13 || in.amount < 0.01 || in.amount > 100 {
			t.Fatalf("transfer %+v", in)
		}
	}
	if a, b := w.tokenHash(1), w.tokenHash(2); len(a) != 64 || a == b {
		t.Errorf("token hashes %q %q", a, b)
	}
}

type testDB struct {
	name   string
	target func(t *testing.T) engine.Target
	// deadlocks: concurrent opposite transfers deadlock (row locks);
	// procedures: the engine has --mode procedure.
	deadlocks, procedures bool
}

var testDBs = []testDB{
	{"sqlite", func(t *testing.T) engine.Target { return testdb.SQLite(t) }, false, false},
	{"postgres", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) }, true, true},
	{"mysql", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.MySQL(t)) }, true, true},
}

// TestTransfersThenCheck runs 16 threads over 10 accounts: without
// --lock-order opposite transfers deadlock and are retried; with it they
// do not. Then the same in --mode procedure where the engine has it (with
// --lock-order a declined transfer has credited first: the procedure must
// take that back). Money is conserved every time, and the checks catch
// corruption.
func TestTransfersThenCheck(t *testing.T) {
	for _, db := range testDBs {
		t.Run(db.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, db.target(t))
			opts := []string{"--accounts", "10", "--users", "10", "--organizations", "2", "--initial-balance", "500"}
			w := parse(t, opts...)
			if _, err := runner.Prepare(ctx, e, w, runner.PrepareConfig{LoadThreads: 2}); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			for _, run := range []struct {
				mode      string
				lockOrder bool
			}{{ModeClient, false}, {ModeClient, true}, {ModeProcedure, false}, {ModeProcedure, true}} {
				if run.mode == ModeProcedure && !db.procedures {
					continue
				}
				lockOrder := run.lockOrder
				if err := w.Flags().Set("lock-order", map[bool]string{false: "false", true: "true"}[lockOrder]); err != nil {
					t.Fatal(err)
				}
				if err := w.Flags().Set("mode", run.mode); err != nil {
					t.Fatal(err)
				}
				res, err := runner.Run(ctx, e, w, runner.Config{Threads: 16, Duration: 2 * time.Second, Seed: 3}, nil)
				if err != nil {
					t.Fatalf("--lock-order=%v: %v", lockOrder, err)
				}
				tr, del := res.Ops[opTransfer], res.Ops[opDelete]
				t.Logf("--mode %s --lock-order=%v: %d transfers (%d declined), %d deletes, %d retries, %d errors", run.mode, lockOrder, tr.Count, tr.Rollbacks, del.Count, res.Retries, res.Errors)
				// Each worker deletes after every 20th of its committed
				// transfers. (On PostgreSQL without --lock-order most
				// transfers wait deadlock_timeout, 1 s, for the deadlock
				// detector: few commit.)
				committed := tr.Count - tr.Rollbacks
				if tr.Count == 0 || res.Errors != 0 || del.Count > committed/20 || (committed >= 2*20*16 && del.Count == 0) {
					t.Errorf("--lock-order=%v: %d transfers, %d deletes, %d errors", lockOrder, tr.Count, del.Count, res.Errors)
				}
				if db.deadlocks && !lockOrder && res.Retries == 0 {
					t.Errorf("no deadlock retried without --lock-order (16 threads, 10 accounts)")
				}
				if lockOrder && res.Retries != 0 {
					t.Errorf("--lock-order: %d retries, want none", res.Retries)
				}
				if probs, err := w.Check(ctx, enginetest.Connect(t, e)); err != nil || len(probs) > 0 {
					t.Fatalf("--lock-order=%v: check: %v %v", lockOrder, probs, err)
				}
			}
			c := enginetest.Connect(t, e)
			for _, tc := range []struct{ sql, want string }{
				{"UPDATE accounts SET balance = balance + 1 WHERE id = 1", "total balance"},
				{"INSERT INTO transfers (card_id, from_account, to_account, user_id, amount, created_at) SELECT 1, 1, 999999, 1, 1, created_at FROM transfers WHERE id = (SELECT MAX(id) FROM transfers)", "transfers reference accounts"},
			} {
				if err := c.Exec(ctx, tc.sql); err != nil {
					t.Fatal(err)
				}
				probs, err := w.Check(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, p := range probs {
					names = append(names, p.Check)
				}
				if !strings.Contains(strings.Join(names, "; "), tc.want) {
					t.Errorf("after %q: problems %q, want %q", tc.sql, names, tc.want)
				}
			}
			if _, err := runner.Cleanup(ctx, e, w); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		})
	}
}

func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
