package tpce

import (
	"slices"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

// source is where the rows of each table come from: the generator of
// the population, or the simulation of the initial trades for the tables
// the trades make.
type source struct {
	m *gen.Model
}

func newSource(c gen.Config) *source { return &source{m: gen.NewModel(c)} }

// trades says whether the initial trades make table's rows.
func (s *source) trades(table string) bool { return slices.Contains(gen.TradeTables, table) }

// batches is the number of batches of table: one per Load Unit for the
// tables that grow with the customers, one for a fixed table, none for
// trade_request (empty at load).
func (s *source) batches(table string) int {
	if s.trades(table) {
		if table == schema.TradeRequest {
			return 0
		}
		return s.m.Config().LoadUnits()
	}
	return s.m.Batches(table)
}

// rows returns the rows of batch b of table.
func (s *source) rows(table string, b int) engine.RowSource {
	if s.trades(table) {
		return s.m.TradeRows(table, b)
	}
	return s.m.Rows(table, b)
}

// maxInitialTradeID is the largest t_id of the initial trades.
func (s *source) maxInitialTradeID() int64 { return s.m.Config().MaxInitialTradeID() }
