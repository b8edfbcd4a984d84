package procs

import (
	"context"
	"errors"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbarena/dbarena/engine"
)

// serverCode is the SQLSTATE (PostgreSQL) or error number (MySQL) of err.
func serverCode(err error) any {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	var myErr *mysql.MySQLError
	if errors.As(err, &myErr) {
		return int(myErr.Number)
	}
	return nil
}

// TestLockTimeoutRollsBack checks that an error in the middle of a
// transaction (here a lock wait timeout on the second item's stock row)
// reaches the caller with its own code and undoes the whole transaction,
// and that the connection is left outside any transaction.
func TestLockTimeoutRollsBack(t *testing.T) {
	t.Parallel()
	forEachServer(t, func(t *testing.T, s testServer) {
		ctx := context.Background()
		v := newEnv(t, s)
		before := dump(t, v.c)
		setTimeout, resetTimeout, wantCode := "SET lock_timeout = '200ms'", "SET lock_timeout = 0", any("55P03")
		if s.name == "mysql" {
			setTimeout, resetTimeout, wantCode = "SET SESSION innodb_lock_wait_timeout = 1", "SET SESSION innodb_lock_wait_timeout = DEFAULT", 1205
		}
		holder := enginetest.Connect(t, v.e)
		if err := holder.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		var q int64
		if err := holder.QueryRow(ctx, "SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = 2 FOR UPDATE", nil, &q); err != nil {
			t.Fatal(err)
		}
		if err := v.c.Exec(ctx, setTimeout); err != nil {
			t.Fatal(err)
		}
		_, err := v.k.NewOrderTx(ctx, 1, 1, 1, []int64{1, 2}, []int64{1, 1}, []int64{1, 1}, t1)
		if err == nil {
			t.Fatal("NewOrderTx succeeded on a locked stock row")
		}
		if got := serverCode(err); got != wantCode {
			t.Errorf("error %v: code %v, want %v", err, got, wantCode)
		}
		if cl := v.c.Dialect().Classify(err); cl != engine.ClassDeadlock {
			t.Errorf("error %v classified %v, want %v", err, cl, engine.ClassDeadlock)
		}
		if err := holder.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		sameDump(t, before, dump(t, v.c))
		if err := v.c.Exec(ctx, resetTimeout); err != nil {
			t.Fatal(err)
		}
		if _, err := v.k.NewOrderTx(ctx, 1, 1, 1, []int64{1, 2}, []int64{1, 1}, []int64{1, 1}, t1); err != nil {
			t.Fatal(err)
		}
		var next int64
		if err := holder.QueryRow(ctx, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1", nil, &next); err != nil || next != 5 {
			t.Errorf("d_next_o_id seen by another connection = %d, %v; want 5", next, err)
		}
	})
}

// TestDeadlockReachesClient makes New-Order the victim of a deadlock: a
// bigger transaction holds stock 1/2 and, once New-Order holds stock 1/1
// and waits for 1/2, asks for 1/1. The client must get the server's own
// deadlock error (MySQL 1213, PostgreSQL 40P01), and nothing of New-Order
// may stay.
func TestDeadlockReachesClient(t *testing.T) {
	t.Parallel()
	forEachServer(t, func(t *testing.T, s testServer) {
		ctx := context.Background()
		v := newEnv(t, s)
		before := dump(t, v.c)
		wantCode := any("40P01")
		if s.name == "mysql" {
			wantCode = 1213
		}
		big, probe := enginetest.Connect(t, v.e), enginetest.Connect(t, v.e)
		if err := big.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		// InnoDB rolls back the transaction that changed fewer rows.
		for _, q := range []string{
			"UPDATE stock SET s_ytd = s_ytd + 1 WHERE s_w_id = 2",
			"UPDATE stock SET s_ytd = s_ytd + 1 WHERE s_w_id = 1 AND s_i_id = 2",
		} {
			if err := big.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() {
			_, err := v.k.NewOrderTx(ctx, 1, 1, 1, []int64{1, 2}, []int64{1, 1}, []int64{1, 1}, t1)
			done <- err
		}()
		// Wait until New-Order holds stock 1/1.
		for deadline := time.Now().Add(10 * time.Second); ; {
			if err := probe.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			var q int64
			err := probe.QueryRow(ctx, "SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = 1 FOR UPDATE NOWAIT", nil, &q)
			if rerr := probe.Rollback(ctx); rerr != nil {
				t.Fatal(rerr)
			}
			if err != nil {
				if probe.Dialect().Classify(err) != engine.ClassDeadlock {
					t.Fatalf("probe: %v", err)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("New-Order never locked stock 1/1")
			}
			time.Sleep(2 * time.Millisecond)
		}
		// New-Order now goes on to wait for 1/2. PostgreSQL's deadlock check
		// runs in the backend that has waited deadlock_timeout first: let
		// New-Order wait first.
		time.Sleep(150 * time.Millisecond)
		bigErr := big.Exec(ctx, "UPDATE stock SET s_ytd = s_ytd + 1 WHERE s_w_id = 1 AND s_i_id = 1")
		err := <-done
		if rerr := big.Rollback(ctx); rerr != nil {
			t.Fatal(rerr)
		}
		if bigErr != nil {
			t.Errorf("the big transaction failed: %v", bigErr)
		}
		if err == nil {
			t.Fatal("NewOrderTx succeeded")
		}
		if got := serverCode(err); got != wantCode {
			t.Errorf("error %v: code %v, want %v", err, got, wantCode)
		}
		if cl := v.c.Dialect().Classify(err); cl != engine.ClassDeadlock {
			t.Errorf("error %v classified %v, want %v", err, cl, engine.ClassDeadlock)
		}
		sameDump(t, before, dump(t, v.c))
	})
}

// TestConcurrentMix runs the five transactions from several connections at
// once, retrying deadlocks as the runner does, and then checks the
// consistency conditions of clause 3.3.2 that the data set allows.
func TestConcurrentMix(t *testing.T) {
	t.Parallel()
	forEachServer(t, func(t *testing.T, s testServer) {
		ctx := context.Background()
		v := newEnv(t, s)
		sums := func() (wYTD, dYTD, hAmount float64, payments, deliveries int64) {
			v.queryRow(t, "SELECT sum(w_ytd) FROM warehouse", nil, &wYTD)
			v.queryRow(t, "SELECT sum(d_ytd) FROM district", nil, &dYTD)
			v.queryRow(t, "SELECT coalesce(sum(h_amount), 0) FROM history", nil, &hAmount)
			v.queryRow(t, "SELECT sum(c_payment_cnt), sum(c_delivery_cnt) FROM customer", nil, &payments, &deliveries)
			return
		}
		w0, d0, _, p0, del0 := sums()
		deliveredAtLoad := v.count(t, "SELECT count(*) FROM orders WHERE o_carrier_id IS NOT NULL")

		const workers, txPerWorker = 4, 120
		var (
			wg                     sync.WaitGroup
			mu                     sync.Mutex
			retries, rolledBackNOs int
		)
		lastNames := map[int64][]string{1: {"BARBARBAR", "OUGHTPRES"}, 2: {"ABLEABLE", "OUGHTPRES"}}
		customers := map[int64]int64{1: 4, 2: 3}
		for w := range workers {
			c := enginetest.Connect(t, v.e)
			k, err := Prepare(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 42))
				for range txPerWorker {
					// The customer's district cd is the district d but for
					// Payment, where it is either.
					d, cd := 1+rng.Int64N(2), 1+rng.Int64N(2)
					customer := func(d int64) (int64, string) {
						if rng.IntN(10) < 6 {
							names := lastNames[d]
							return 0, names[rng.IntN(len(names))]
						}
						return 1 + rng.Int64N(customers[d]), ""
					}
					cID, last := customer(d)
					var run func() error
					switch p := rng.IntN(100); {
					case p < 45:
						n := 5 + rng.IntN(6)
						items, supply, qty := make([]int64, n), make([]int64, n), make([]int64, n)
						for i := range items {
							items[i], supply[i], qty[i] = 1+rng.Int64N(20), 1, 1+rng.Int64N(10)
							if rng.IntN(10) == 0 {
								supply[i] = 2
							}
						}
						if rng.IntN(100) == 0 {
							items[n-1] = 100001
						}
						noC := 1 + rng.Int64N(customers[d]) // New-Order picks by id only
						run = func() error {
							rb, err := k.NewOrderTx(ctx, 1, d, noC, items, supply, qty, t1)
							if rb {
								mu.Lock()
								rolledBackNOs++
								mu.Unlock()
							}
							return err
						}
					case p < 88:
						amount := float64(1+rng.IntN(500000)) / 100
						cID, last := customer(cd)
						run = func() error { return k.PaymentTx(ctx, 1, d, 1, cd, cID, last, amount, t1) }
					case p < 92:
						run = func() error { return k.OrderStatusTx(ctx, 1, d, cID, last) }
					case p < 96:
						run = func() error { return k.DeliveryTx(ctx, 1, 1+rng.Int64N(10), t1) }
					default:
						run = func() error { _, err := k.StockLevelTx(ctx, 1, d, 10+rng.Int64N(11)); return err }
					}
					for attempt := 0; ; attempt++ {
						err := run()
						if err == nil {
							break
						}
						cl := c.Dialect().Classify(err)
						if (cl == engine.ClassDeadlock || cl == engine.ClassSerialization) && attempt < 20 {
							mu.Lock()
							retries++
							mu.Unlock()
							continue
						}
						t.Errorf("worker %d: %v (%v)", w, err, cl)
						return
					}
				}
			}()
		}
		wg.Wait()
		t.Logf("%d transactions, %d deadlock retries, %d New-Orders rolled back", workers*txPerWorker, retries, rolledBackNOs)

		// Condition 1: W_YTD = sum(D_YTD), as deltas (the data set starts
		// off balance), and both moved by the history's amounts.
		w1, d1, h1, p1, del1 := sums()
		if !money(w1-w0, d1-d0) || !money(w1-w0, h1) {
			t.Errorf("w_ytd moved by %.2f, d_ytd by %.2f, history holds %.2f", w1-w0, d1-d0, h1)
		}
		if nh := v.count(t, "SELECT count(*) FROM history"); p1-p0 != nh {
			t.Errorf("c_payment_cnt grew by %d, %d history rows", p1-p0, nh)
		}
		delivered := v.count(t, "SELECT count(*) FROM orders WHERE o_carrier_id IS NOT NULL")
		if del1-del0 != delivered-deliveredAtLoad {
			t.Errorf("c_delivery_cnt grew by %d, %d orders delivered", del1-del0, delivered-deliveredAtLoad)
		}
		for d := 1; d <= 2; d++ {
			// Conditions 2 and 3: order ids are dense up to d_next_o_id - 1,
			// and so are the new orders.
			next := v.nextOID(t, 1, d)
			var nOrders, maxO int64
			v.queryRow(t, "SELECT count(*), max(o_id) FROM orders WHERE o_w_id = 1 AND o_d_id = ?", []any{d}, &nOrders, &maxO)
			if maxO != next-1 || nOrders != maxO {
				t.Errorf("district %d: d_next_o_id %d, %d orders, max o_id %d", d, next, nOrders, maxO)
			}
			var nNew, minNew, maxNew int64
			if err := v.c.QueryRow(ctx, "SELECT count(*), coalesce(min(no_o_id), 0), coalesce(max(no_o_id), 0) FROM new_order WHERE no_w_id = 1 AND no_d_id = ?", []any{d}, &nNew, &minNew, &maxNew); err != nil {
				t.Fatal(err)
			}
			if nNew > 0 && (nNew != maxNew-minNew+1 || maxNew != maxO) {
				t.Errorf("district %d: %d new orders from %d to %d, max o_id %d", d, nNew, minNew, maxNew, maxO)
			}
			// Undelivered orders are exactly the new orders.
			if n := v.count(t, "SELECT count(*) FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_carrier_id IS NULL", d); n != nNew {
				t.Errorf("district %d: %d orders without carrier, %d new orders", d, n, nNew)
			}
			// Condition 4: sum(O_OL_CNT) = number of order lines.
			sumCnt := v.count(t, "SELECT sum(o_ol_cnt) FROM orders WHERE o_w_id = 1 AND o_d_id = ?", d)
			lines := v.count(t, "SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ?", d)
			if sumCnt != lines {
				t.Errorf("district %d: sum(o_ol_cnt) %d, %d order lines", d, sumCnt, lines)
			}
		}
	})
}
