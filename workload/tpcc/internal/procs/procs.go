package procs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/byengine"
	"github.com/dbarena/dbarena/workload/internal/sqlproc"
)

// ErrUnsupported is returned by Install, Uninstall and Prepare for an
// engine without stored procedures (SQLite), and wrapped by them for one
// whose procedures this package lacks.
var ErrUnsupported = errors.New("sqlite has no stored procedures; use --mode client")

// Names of the server objects, in the order of Calls' fields.
const (
	NewOrderName    = "tpcc_new_order"
	PaymentName     = "tpcc_payment"
	OrderStatusName = "tpcc_order_status"
	DeliveryName    = "tpcc_delivery"
	StockLevelName  = "tpcc_stock_level"
)

// Names lists the five server objects.
var Names = []string{NewOrderName, PaymentName, OrderStatusName, DeliveryName, StockLevelName}

// flavor is the server code and the calls of one engine family; each
// engine's file registers its own in flavors.
type flavor struct {
	// inst installs, drops and calls the routines on the engine.
	inst sqlproc.Installer
	// routines are the five, in the order of Names.
	routines []sqlproc.Routine
	// missing lists those of names missing from c's schema or database,
	// on an engine where preparing their calls would not tell (nil
	// elsewhere).
	missing func(ctx context.Context, c engine.SQLConn, names []string) ([]string, error)
}

// flavors are the engines' flavors.
var flavors = byengine.Registry[flavor]{What: "tpcc stored procedures", Err: ErrUnsupported}

// routines pairs the five sources, in the order of Names, with their names.
func routines(newOrder, payment, orderStatus, delivery, stockLevel string) []sqlproc.Routine {
	srcs := []string{newOrder, payment, orderStatus, delivery, stockLevel}
	out := make([]sqlproc.Routine, len(Names))
	for i, n := range Names {
		out[i] = sqlproc.Routine{Name: n, Create: srcs[i]}
	}
	return out
}

// flavorOf picks the flavor of c's engine family.
func flavorOf(c engine.SQLConn) (flavor, error) {
	caps := c.Dialect().Capabilities()
	if !caps.Procedures {
		return flavor{}, ErrUnsupported
	}
	f, err := flavors.For(caps.Kind)
	if err != nil {
		return flavor{}, fmt.Errorf("procs: %w", err)
	}
	return f, nil
}

// Install creates the five server objects in c's current schema or
// database, replacing any earlier version of them (on PostgreSQL, every
// overload of the five names; in one transaction). It is idempotent. It
// returns ErrUnsupported for SQLite.
func Install(ctx context.Context, c engine.SQLConn) error {
	f, err := flavorOf(c)
	if err != nil {
		return err
	}
	if err := f.inst.Install(ctx, c, f.routines); err != nil {
		return fmt.Errorf("procs: install: %w", err)
	}
	return nil
}

// Uninstall drops the five server objects where present. It returns
// ErrUnsupported for SQLite.
func Uninstall(ctx context.Context, c engine.SQLConn) error {
	f, err := flavorOf(c)
	if err != nil {
		return err
	}
	if err := f.inst.Uninstall(ctx, c, Names); err != nil {
		return fmt.Errorf("procs: uninstall: %w", err)
	}
	return nil
}

// Calls holds the five call statements prepared on one connection. It is
// not safe for concurrent use.
type Calls struct {
	NewOrder    engine.Stmt // (w, d, c, items, supply_ws, quantities, entry_d) → 0 | 1 (rolled back)
	Payment     engine.Stmt // (w, d, c_w, c_d, c, c_last, amount, date) → 0
	OrderStatus engine.Stmt // (w, d, c, c_last) → order lines read
	Delivery    engine.Stmt // (w, carrier, date) → districts delivered
	StockLevel  engine.Stmt // (w, d, threshold) → low-stock count

	buf  []byte
	args [8]any
}

// Prepare prepares the five calls on c. The server objects must have been
// installed (Install) in c's schema or database: Prepare fails when one is
// missing. It returns ErrUnsupported for SQLite.
func Prepare(ctx context.Context, c engine.SQLConn) (*Calls, error) {
	f, err := flavorOf(c)
	if err != nil {
		return nil, err
	}
	if f.missing != nil {
		missing, err := f.missing(ctx, c, Names)
		if err != nil {
			return nil, fmt.Errorf("procs: %w", err)
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("procs: procedures missing from the database (not installed?): %s", strings.Join(missing, ", "))
		}
	}
	k := &Calls{}
	for _, p := range []struct {
		st   *engine.Stmt
		name string
		n    int
	}{
		{&k.NewOrder, NewOrderName, 7},
		{&k.Payment, PaymentName, 8},
		{&k.OrderStatus, OrderStatusName, 4},
		{&k.Delivery, DeliveryName, 3},
		{&k.StockLevel, StockLevelName, 3},
	} {
		st, err := c.Prepare(ctx, f.inst.Call(p.name, p.n))
		if err != nil {
			return nil, fmt.Errorf("procs: preparing the call of %s (is it installed?): %w", p.name, err)
		}
		*p.st = st
	}
	return k, nil
}

// list renders ids as comma-separated decimal text.
func (k *Calls) list(ids []int64) string {
	k.buf = k.buf[:0]
	for i, id := range ids {
		if i > 0 {
			k.buf = append(k.buf, ',')
		}
		k.buf = strconv.AppendInt(k.buf, id, 10)
	}
	return string(k.buf)
}

// ErrBadItems is returned by NewOrderTx, before anything is sent, when the
// item, supplying warehouse and quantity lists are empty or of different
// lengths.
var ErrBadItems = errors.New("procs: New-Order needs as many supplying warehouses and quantities as items, and at least one item")

// NewOrderTx runs one New-Order transaction (clause 2.4) for customer cID
// of district dID of warehouse wID, ordering itemIDs[i] in quantities[i]
// from warehouse supplyWIDs[i]. rolledBack is true when an item did not
// exist and the transaction was rolled back, as the specification intends
// for 1% of New-Orders; err is then nil.
func (k *Calls) NewOrderTx(ctx context.Context, wID, dID, cID int64, itemIDs, supplyWIDs, quantities []int64, entryD time.Time) (rolledBack bool, err error) {
	if len(itemIDs) == 0 || len(supplyWIDs) != len(itemIDs) || len(quantities) != len(itemIDs) {
		return false, fmt.Errorf("%w (got %d, %d, %d)", ErrBadItems, len(itemIDs), len(supplyWIDs), len(quantities))
	}
	a := k.args[:7]
	a[0], a[1], a[2] = wID, dID, cID
	a[3], a[4], a[5] = k.list(itemIDs), k.list(supplyWIDs), k.list(quantities)
	a[6] = entryD
	var status int64
	if err := k.NewOrder.QueryRow(ctx, a, &status); err != nil {
		return false, err
	}
	switch status {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	return false, fmt.Errorf("procs: %s returned status %d", NewOrderName, status)
}

// PaymentTx runs one Payment transaction (clause 2.5): amount paid at
// warehouse wID, district dID, by the customer of warehouse cWID, district
// cDID chosen by id cID, or by last name when cLast is not "".
func (k *Calls) PaymentTx(ctx context.Context, wID, dID, cWID, cDID, cID int64, cLast string, amount float64, date time.Time) error {
	a := k.args[:8]
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = wID, dID, cWID, cDID, cID, cLast, amount, date
	var status int64
	return k.Payment.QueryRow(ctx, a, &status)
}

// OrderStatusTx runs one Order-Status transaction (clause 2.6) for the
// customer of warehouse wID, district dID chosen by id cID, or by last
// name when cLast is not "".
func (k *Calls) OrderStatusTx(ctx context.Context, wID, dID, cID int64, cLast string) error {
	a := k.args[:4]
	a[0], a[1], a[2], a[3] = wID, dID, cID, cLast
	var lines int64
	return k.OrderStatus.QueryRow(ctx, a, &lines)
}

// DeliveryTx runs one Delivery transaction (clause 2.7) for the ten
// districts of warehouse wID, in one database transaction.
func (k *Calls) DeliveryTx(ctx context.Context, wID, carrierID int64, date time.Time) error {
	a := k.args[:3]
	a[0], a[1], a[2] = wID, carrierID, date
	var delivered int64
	return k.Delivery.QueryRow(ctx, a, &delivered)
}

// StockLevelTx runs one Stock-Level transaction (clause 2.8) and returns
// the number of distinct items of the last 20 orders of district dID whose
// stock in warehouse wID is below threshold.
func (k *Calls) StockLevelTx(ctx context.Context, wID, dID, threshold int64) (lowStock int64, err error) {
	a := k.args[:3]
	a[0], a[1], a[2] = wID, dID, threshold
	if err := k.StockLevel.QueryRow(ctx, a, &lowStock); err != nil {
		return 0, err
	}
	return lowStock, nil
}
