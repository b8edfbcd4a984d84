package procs_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/workload/tpce/internal/procs"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// concurrent: workers of each mode, each on its own connection, buy and
// sell on accounts that share brokers at the same time; every trade
// completes or fails with an error the runner retries (a deadlock or a
// serialization failure, which leaves nothing behind), new trade ids never
// collide, and the database stays consistent.
func concurrent(t *testing.T, v *env) {
	ctx := context.Background()
	const workers, rounds = 4, 5
	accts := v.ints(t, "SELECT hs_ca_id FROM holding_summary WHERE hs_qty > 0 GROUP BY hs_ca_id ORDER BY hs_ca_id LIMIT 8")
	if len(accts) < workers {
		t.Fatalf("%d accounts with holdings", len(accts))
	}
	for _, m := range v.modeSeq {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var done, retried int
		ids := map[int64]bool{}
		for w := range workers {
			c := enginetest.Connect(t, v.e)
			cl, err := procs.New(ctx, c, m)
			if err != nil {
				t.Fatal(err)
			}
			acct := accts[w]
			in := v.owner(t, acct)
			in.Symbol = v.str(t, "SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = ? AND hs_qty > 0", acct)
			in.TradeQty, in.IsLIFO = 100, true
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 2 * rounds {
					in := in
					price := 25.0
					in.TradeTypeID = txn.TypeMarketBuy
					if i%2 == 1 {
						in.TradeTypeID, price = txn.TypeMarketSell, 26
					}
					o, err := cl.TradeOrder(ctx, in)
					if err == nil {
						_, err = cl.TradeResult(ctx, txn.TradeResultInput{TradeID: o.TradeID, TradePrice: price})
					}
					mu.Lock()
					switch class := c.Dialect().Classify(err); {
					case err == nil:
						done++
						if ids[o.TradeID] {
							t.Errorf("%s mode: trade id %d twice", m, o.TradeID)
						}
						ids[o.TradeID] = true
					case class == engine.ClassDeadlock || class == engine.ClassSerialization:
						retried++
					default:
						t.Errorf("%s mode, worker %d: %v", m, w, err)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		t.Logf("%s mode: %d trades completed, %d to retry", m, done, retried)
		if done < workers*rounds {
			t.Errorf("%s mode: %d of %d trades completed", m, done, 2*workers*rounds)
		}
		// A Trade-Order that failed after its Trade-Result was retried
		// would leave a submitted trade: Trade-Cleanup cancels it.
		if _, err := v.modes[m].TradeCleanup(ctx, txn.TradeCleanupInput{StartTradeID: v.maxInitial + 1}); err != nil && !errors.Is(err, txn.ErrNotFound) {
			t.Fatal(err)
		}
	}
	v.check(t)
}
