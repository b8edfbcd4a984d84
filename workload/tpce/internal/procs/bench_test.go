package procs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/procs"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// queriesOf is the statement counter of a client of any mode.
func queriesOf(r txnRunner) *workload.Queries {
	switch r := r.(type) {
	case *txn.Client:
		return &r.Queries
	case *procs.Client:
		return &r.Queries
	}
	return nil
}

// BenchmarkModes measures, on one PostgreSQL database prepared as the
// tests' (one Load Unit, one initial trade day), the time and the
// statements of one transaction in each mode: the read-only transactions
// of the tests' fixed draws in turn, and a Trade-Order with its
// Trade-Result (a market buy and a market sell of 100 shares, LIFO, in
// turn). Run it with
//
//	go test -run '^$' -bench Modes ./workload/tpce/internal/procs/
func BenchmarkModes(b *testing.B) {
	ctx := context.Background()
	v := prepare(b, testdb.Isolated(b, testdb.Postgres(b)))
	inputs := readOnlyInputs(b, 20)
	acct := v.int(b, "SELECT MIN(hs_ca_id) FROM holding_summary WHERE hs_qty > 0")
	order := v.owner(b, acct)
	order.Symbol = v.str(b, "SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = ? AND hs_qty > 0", acct)
	order.TradeQty, order.IsLIFO = 100, true
	// The modes take turns on each transaction, so that what happens to
	// the server meanwhile (autovacuum after the load) falls on all three.
	for _, kind := range kinds(inputs) {
		for _, r := range v.runners() {
			q := queriesOf(r.r)
			b.Run(kind.name+"/mode="+r.name, func(b *testing.B) {
				before := *q
				for i := range b.N {
					if _, _, err := runOne(ctx, r.r, kind.inputs[i%len(kind.inputs)]); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(q.Reads+q.Writes+q.Other-before.Reads-before.Writes-before.Other)/float64(b.N), "stmts/op")
			})
		}
	}
	for _, r := range v.runners() {
		q := queriesOf(r.r)
		b.Run("OrderResult/mode="+r.name, func(b *testing.B) {
			before := *q
			for i := range b.N {
				in, price := order, 25.0
				in.TradeTypeID = txn.TypeMarketBuy
				if i%2 == 1 {
					in.TradeTypeID, price = txn.TypeMarketSell, 26
				}
				o, err := r.r.TradeOrder(ctx, in)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.r.TradeResult(ctx, txn.TradeResultInput{TradeID: o.TradeID, TradePrice: price}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(q.Reads+q.Writes+q.Other-before.Reads-before.Writes-before.Other)/float64(b.N), "stmts/op")
		})
	}
}

// kind is the inputs of one read-only transaction.
type kind struct {
	name   string
	inputs []any
}

// kinds groups inputs by transaction, in the order of their first
// input; Broker-Volume (no order is pending) is left out.
func kinds(inputs []any) []kind {
	var out []kind
	at := map[string]int{}
	for _, in := range inputs {
		name := strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", in), "txn."), "Input")
		if name == "BrokerVolume" {
			continue
		}
		i, ok := at[name]
		if !ok {
			i = len(out)
			at[name] = i
			out = append(out, kind{name: name})
		}
		out[i].inputs = append(out[i].inputs, in)
	}
	return out
}
