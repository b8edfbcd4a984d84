package gen

import (
	"sync"
	"testing"
)

// goldenTrades pins the trade tables of Load Unit 1 of a database of 2
// Load Units at ITD 1 (seed 11): FNV-64a of the rows (see tableHash) and
// the row count. Changing a draw, its order, a stream tag, a fee or a
// name changes them; update them only for a deliberate change of the
// data.
var goldenTrades = map[string]struct {
	hash uint64
	rows int64
}{
	"broker":           {0x9a77a380f74a9a37, 10},
	"trade":            {0x3f6c56ff9eacc186, 57600},
	"trade_history":    {0x6c22900ee40f0c08, 138245},
	"trade_request":    {0xcbf29ce484222325, 0},
	"settlement":       {0xcf11f1cd086034b1, 57600},
	"cash_transaction": {0x8ff51f15d75d854d, 52868},
	"holding_summary":  {0x564df6a2c0db9415, 26097},
	"holding":          {0x589d5a2bbc1d2d59, 37134},
	"holding_history":  {0x9ca7531ba3560eb4, 64301},
}

func TestTradeGolden(t *testing.T) {
	hashes, rows := sequentialTradeHashes(t)
	for _, table := range TradeTables {
		h, n := hashes[tradeKey{table, 1}], rows[tradeKey{table, 1}]
		if g, ok := goldenTrades[table]; !ok || g.hash != h || g.rows != n {
			t.Errorf("%s: hash 0x%016x rows %d, golden 0x%016x %d", table, h, n, g.hash, g.rows)
		}
	}
}

// TestTradeRowsParallel generates every table of two Load Units at once
// (as loading does; run with -race) and compares them with the
// sequential hashes.
func TestTradeRowsParallel(t *testing.T) {
	want, _ := sequentialTradeHashes(t)
	m := NewModel(tradeConfig(2, 1))
	var mu sync.Mutex
	got := map[tradeKey]uint64{}
	var wg sync.WaitGroup
	for lu := range 2 {
		for _, table := range TradeTables {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h, _ := tableHash(t, m, table, lu)
				mu.Lock()
				got[tradeKey{table, lu}] = h
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	for k, h := range got {
		if h != want[k] {
			t.Errorf("%s LU %d: parallel hash %x, sequential %x", k.table, k.lu, h, want[k])
		}
	}
}
