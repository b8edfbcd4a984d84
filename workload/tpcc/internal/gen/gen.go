package gen

import (
	"errors"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/tpcc/internal/schema"
)

// Population sizes (clauses 1.2 and 4.3.3.1).
const (
	Items                 = 100000 // rows of item
	DistrictsPerWarehouse = 10
	CustomersPerDistrict  = 3000
	OrdersPerDistrict     = 3000
	NewOrdersPerDistrict  = 900 // the orders 2101 … 3000 of each district
	StockPerWarehouse     = 100000
)

// firstNewOrder is the first order of each district that is still
// undelivered after the load: it has a new_order row, no carrier, and
// order lines without a delivery date.
const firstNewOrder = OrdersPerDistrict - NewOrdersPerDistrict + 1 // 2101

// Sentinel errors of the row sources (reported by their Err method).
var (
	// ErrUnknownTable is the error of Rows for a name that is not a
	// TPC-C table.
	ErrUnknownTable = errors.New("unknown TPC-C table")
	// ErrWarehouse is the error of a source asked for a warehouse outside
	// [1, Config.Warehouses].
	ErrWarehouse = errors.New("warehouse out of range")
)

// Config fixes everything the initial data depends on. Every row source
// is a pure function of (Seed, table, warehouse) and Now: the rows of one
// warehouse do not depend on Warehouses or on the other warehouses, so
// warehouses (and tables) load in any order, in parallel, or again after
// a failure. A Config is a value; its methods are safe for concurrent use.
type Config struct {
	// Seed selects the data and the load constants (LoadConstants(Seed)).
	Seed uint64
	// Warehouses is the number of warehouses; sources for a warehouse
	// outside [1, Warehouses] fail with ErrWarehouse.
	Warehouses int
	// Now is the load timestamp written into c_since, h_date, o_entry_d
	// and ol_delivery_d, as is (callers pick its precision; most engines
	// keep microseconds at best).
	Now time.Time
}

// Validate reports every problem of c at once.
func (c Config) Validate() []error {
	var errs []error
	if c.Warehouses < 1 {
		errs = append(errs, fmt.Errorf("gen: Warehouses = %d: want at least 1", c.Warehouses))
	}
	if c.Now.IsZero() {
		errs = append(errs, errors.New("gen: Now is the zero time: want the load timestamp"))
	}
	return errs
}

// Constants are the constants C-Load the data is generated with:
// LoadConstants(c.Seed). The run phase derives its C-Run from them with
// RunConstants.
func (c Config) Constants() Constants { return LoadConstants(c.Seed) }

// checkW returns a failing source if w is not a warehouse of c.
func (c Config) checkW(w int) engine.RowSource {
	if w < 1 || w > c.Warehouses {
		return &errSource{err: fmt.Errorf("gen: %w: %d not in [1, %d]", ErrWarehouse, w, c.Warehouses)}
	}
	return nil
}

// Rows returns the rows of table (a schema table name such as
// schema.Stock) for warehouse w; w is ignored for item. An unknown table
// yields a source whose Err wraps ErrUnknownTable.
func (c Config) Rows(table string, w int) engine.RowSource {
	switch table {
	case schema.Item:
		return c.Items()
	case schema.Warehouse:
		return c.Warehouse(w)
	case schema.Stock:
		return c.Stock(w)
	case schema.District:
		return c.Districts(w)
	case schema.Customer:
		return c.Customers(w)
	case schema.History:
		return c.History(w)
	case schema.Orders:
		return c.Orders(w)
	case schema.NewOrder:
		return c.NewOrders(w)
	case schema.OrderLine:
		return c.OrderLines(w)
	}
	return &errSource{err: fmt.Errorf("gen: %w %q", ErrUnknownTable, table)}
}

// RowCount is the exact number of rows Rows(table, w) yields: 0 for an
// unknown table or a warehouse outside [1, Warehouses] (w is ignored for
// item). For order_line it replays the o_ol_cnt draws of the warehouse's
// ten districts, which takes well under a millisecond.
func (c Config) RowCount(table string, w int) int64 {
	if table == schema.Item {
		return Items
	}
	if w < 1 || w > c.Warehouses {
		return 0
	}
	switch table {
	case schema.Warehouse:
		return 1
	case schema.Stock:
		return StockPerWarehouse
	case schema.District:
		return DistrictsPerWarehouse
	case schema.Customer, schema.History:
		return DistrictsPerWarehouse * CustomersPerDistrict
	case schema.Orders:
		return DistrictsPerWarehouse * OrdersPerDistrict
	case schema.NewOrder:
		return DistrictsPerWarehouse * NewOrdersPerDistrict
	case schema.OrderLine:
		var n int64
		h := newReseedable()
		for d := 1; d <= DistrictsPerWarehouse; d++ {
			h.reset(c.Seed, tagOrderHeader, w, d)
			for o := int64(1); o <= OrdersPerDistrict; o++ {
				cnt, _ := orderHeader(h, o)
				n += cnt
			}
		}
		return n
	}
	return 0
}

// errSource is a source that yields no rows and fails with err.
type errSource struct{ err error }

func (s *errSource) Next() bool             { return false }
func (s *errSource) Values() ([]any, error) { return nil, s.err }
func (s *errSource) Err() error             { return s.err }
