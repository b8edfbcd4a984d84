package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpcc/internal/consistency"
	"github.com/dbarena/dbarena/workload/tpcc/internal/gen"
	"github.com/dbarena/dbarena/workload/tpcc/internal/procs"
	"github.com/dbarena/dbarena/workload/tpcc/internal/schema"
)

// Name is the workload's registered name.
const Name = "tpcc"

// version changes whenever data or transactions change in a way that makes
// results incomparable with earlier ones.
const version = "1"

// Execution modes.
const (
	ModeClient    = "client"
	ModeProcedure = "procedure"
)

// Op indexes, in Ops order.
const (
	opNewOrder = iota
	opPayment
	opOrderStatus
	opDelivery
	opStockLevel
	numOps
)

var opNames = [numOps]string{"new_order", "payment", "order_status", "delivery", "stock_level"}

func init() {
	workload.Register(meta())
}

func meta() workload.Meta {
	return workload.Meta{
		Name:        Name,
		Description: "TPC-C-like order entry (TPROC-C style): New-Order, Payment, Order-Status, Delivery, Stock-Level over W warehouses; NOPM and tpmC",
		Version:     version,
		New:         func() workload.Workload { return New() },
	}
}

type options struct {
	warehouses int
	mode       string
	pipeline   bool
	wait       bool
	fk         bool
	seedData   uint64
}

// TPCC is the TPC-C-like workload with its options. Its methods are
// safe to call from one goroutine at a time; the Runs it opens hold
// their own copy of the options.
type TPCC struct {
	opts options
	fs   *pflag.FlagSet
	// loadTime is the timestamp written into the initial data; fixed per
	// workload value so every batch of one prepare agrees.
	loadTime time.Time
}

var _ workload.Workload = (*TPCC)(nil)

// New returns the workload with default options.
func New() *TPCC {
	w := &TPCC{loadTime: time.Now().UTC().Truncate(time.Second)}
	fs := pflag.NewFlagSet(Name, pflag.ContinueOnError)
	o := &w.opts
	fs.IntVar(&o.warehouses, "warehouses", 1, "number of warehouses (the scale factor; about 100 MB each)")
	fs.StringVar(&o.mode, "mode", ModeClient, "where the transactions' logic runs: client (statements sent by dbarena) or procedure (server-side functions/procedures: PL/pgSQL on PostgreSQL, stored procedures on MySQL/MariaDB)")
	fs.BoolVar(&o.pipeline, "pipeline", true, "client mode: send the statements of a transaction that do not depend on each other's results together, in one round trip on PostgreSQL (New-Order takes 2, Delivery 2); false sends one statement per round trip, as go-tpc and BenchBase do")
	fs.BoolVar(&o.wait, "wait", false, "pace each terminal with the specification's keying and think times (run 10 threads per warehouse); reports tpmC, efficiency and the 90th-percentile limits")
	fs.BoolVar(&o.fk, "fk", false, "add the specification's foreign keys after the load (PostgreSQL, MySQL/MariaDB)")
	fs.Uint64Var(&o.seedData, "seed-data", 0, "seed of the initial data and of the run-time NURand constants: the same seed and warehouses always load the same rows")
	w.fs = fs
	return w
}

// counterNewOrders is the database's own count of New-Orders: the sum of
// d_next_o_id, which every committed New-Order advances by one (HammerDB's
// NOPM).
const counterNewOrders = "sum_d_next_o_id"

// Define implements workload.Workload: the nine tables (one batch per
// warehouse), the five transactions, the data options (the warehouses, to
// which terminals are bound, the foreign keys and the data's seed), the
// database's count of New-Orders and the figures computed from it.
func (w *TPCC) Define() workload.Spec {
	return workload.Spec{
		Meta:        meta(),
		Options:     w.fs,
		Validate:    w.validate,
		Supports:    w.supports,
		DataOptions: []string{"warehouses", "fk", "seed-data"},
		Tables:      w.tables,
		// Batch b of every per-warehouse table is warehouse b+1 (item's
		// one batch counts with the first).
		BatchUnit:  "warehouses",
		FinishLoad: w.finishLoad,
		Install:    w.install,
		Uninstall:  uninstall,
		Check:      check,
		CheckDoc: "TPC-C's consistency conditions 1 to 12 of clause 3.3.2 but 11 (which holds only before the first Delivery): " +
			"each warehouse's and district's year-to-date sums match the payments in history, order and new-order ids run without gaps, " +
			"order lines match their orders' counts and delivery dates, customers' balances match their orders and payments. " +
			"Every transaction keeps them; a transaction cut half-way, or other writes to the tables, breaks them.",
		Ops:      ops(),
		Metrics:  metricNames(w.opts.wait),
		Counters: &workload.Counters{Names: []string{counterNewOrders}, Read: readCounters},
	}
}

// Open implements workload.Workload: the run holds the options as they
// are now and the run phase's NURand constants, the same for every
// terminal. It refuses options that do not validate (ErrInvalidOptions).
func (w *TPCC) Open(_ context.Context, _ workload.RunEnv) (*workload.Run, error) {
	if errs := w.validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	r := w.newRun()
	return &workload.Run{NewWorker: r.newWorker, Metrics: r.metrics}, nil
}

// newRun returns a run of the options as they are now.
func (w *TPCC) newRun() *run {
	return &run{opts: w.opts, cRun: runConstants(w.opts.seedData)}
}

// run is one run of the workload: its options and the constants its
// terminals share, read-only.
type run struct {
	opts options
	cRun gen.Constants
}

// MaxWarehouses bounds --warehouses: about 100 MB a warehouse, so 10 TB.
const MaxWarehouses = 100_000

// validate reports every bad option at once.
func (w *TPCC) validate() []error {
	var errs []error
	o := &w.opts
	if o.warehouses < 1 {
		errs = append(errs, &workload.OptionError{Flag: "warehouses", Value: fmt.Sprint(o.warehouses), Err: "must be at least 1"})
	}
	if o.warehouses > MaxWarehouses {
		errs = append(errs, &workload.OptionError{Flag: "warehouses", Value: fmt.Sprint(o.warehouses), Err: fmt.Sprintf("at most %d (about 10 TB of data)", MaxWarehouses)})
	}
	if o.mode != ModeClient && o.mode != ModeProcedure {
		errs = append(errs, &workload.OptionError{Flag: "mode", Value: o.mode, Err: "must be client or procedure"})
	}
	return errs
}

// supports refuses what the engine caps describes cannot run: procedure
// mode without stored procedures (SQLite), and --pipeline asked for
// explicitly in client mode where connections send one statement per
// round trip. The default --pipeline stays: it pipelines where the engine
// can and sends one statement at a time elsewhere, with the same results.
func (w *TPCC) supports(caps engine.Capabilities) []error {
	var errs []error
	o := &w.opts
	if o.mode == ModeProcedure && !caps.Procedures {
		errs = append(errs, &workload.OptionError{Flag: "mode", Value: ModeProcedure, Err: fmt.Sprintf("%s has no stored procedures; use --mode client", caps.Kind)})
	}
	if o.mode == ModeClient && o.pipeline && w.fs.Changed("pipeline") && !caps.Pipelines {
		errs = append(errs, &workload.OptionError{Flag: "pipeline", Value: "true",
			Err: fmt.Sprintf("pipelines run on PostgreSQL only: %s sends one statement per round trip; leave --pipeline unset or use --pipeline=false", caps.Kind)})
	}
	return errs
}

// ErrInvalidOptions is returned by Open when the options do not
// validate; the wrapped errors name each bad flag.
var ErrInvalidOptions = errors.New("tpcc: invalid options")

// ops lists the five transactions.
func ops() []workload.Op {
	out := make([]workload.Op, numOps)
	for i, n := range opNames {
		out[i] = workload.Op{Name: n}
	}
	return out
}

func (w *TPCC) genConfig() gen.Config {
	return gen.Config{Seed: w.opts.seedData, Warehouses: w.opts.warehouses, Now: w.loadTime}
}

// tables returns the nine declared tables (with the specification's
// foreign keys under --fk). Each per-warehouse table loads one batch per
// warehouse, so warehouses load in parallel; item is one batch. The
// engines decide where the primary key goes (PostgreSQL builds it after
// the load); secondary indexes always come after the rows, foreign keys
// after every table.
func (w *TPCC) tables(engine.Dialect) []workload.Table {
	cfg := w.genConfig()
	decl := schema.Declared(w.opts.fk)
	out := make([]workload.Table, 0, len(decl))
	for _, t := range decl {
		name := t.Name
		batches, first := w.opts.warehouses, 1
		if name == schema.Item {
			batches, first = 1, 0
		}
		out = append(out, workload.Table{
			Schema:  t,
			Name:    name,
			Batches: batches,
			Rows:    func(b int) engine.RowSource { return cfg.Rows(name, b+first) },
		})
	}
	return out
}

// finishLoad refuses --fk on an engine that cannot add foreign keys to
// loaded tables (SQLite, which enforces declared ones only when asked).
func (w *TPCC) finishLoad(ctx context.Context, conn engine.Conn) error {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return cerr
	}
	if w.opts.fk && !c.Dialect().Capabilities().LateForeignKeys {
		return &workload.OptionError{Flag: "fk", Value: "true", Err: c.Dialect().Name() + " cannot add foreign keys to loaded tables"}
	}
	return nil
}

// install runs once before a run: in procedure mode it creates the
// server-side transactions. (That the target holds as many warehouses as
// --warehouses says is checked with every data option, see DataOptions.)
func (w *TPCC) install(ctx context.Context, conn engine.Conn) error {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return cerr
	}
	if w.opts.mode != ModeProcedure {
		return nil
	}
	if err := procs.Install(ctx, c); err != nil {
		if errors.Is(err, procs.ErrUnsupported) {
			return &workload.OptionError{Flag: "mode", Value: ModeProcedure, Err: err.Error()}
		}
		return fmt.Errorf("--mode procedure: %w", err)
	}
	return nil
}

// uninstall drops the server-side transactions, whatever the mode.
func uninstall(ctx context.Context, conn engine.Conn) error {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return cerr
	}
	err := procs.Uninstall(ctx, c)
	if errors.Is(err, procs.ErrUnsupported) {
		return nil
	}
	return err
}

// check runs the specification's consistency conditions (clause 3.3.2).
func check(ctx context.Context, conn engine.Conn) ([]workload.Problem, error) {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return nil, cerr
	}
	return consistency.Check(ctx, c)
}

// readCounters reads sum(d_next_o_id) (counterNewOrders).
func readCounters(ctx context.Context, conn engine.Conn, dst []int64) error {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return cerr
	}
	return c.QueryRow(ctx, "SELECT SUM(d_next_o_id) FROM district", nil, &dst[0])
}

// runConstants are the NURand constants of the run phase for the data's
// seed: C-Run chosen from C-Load by the rules of clause 2.1.6.1, the same
// for every terminal.
func runConstants(seedData uint64) gen.Constants {
	load := gen.LoadConstants(seedData)
	return gen.RunConstants(load, rand.New(rand.NewPCG(seedData, 0xc0ffee)))
}

// newWorker returns a terminal bound to a home warehouse and district:
// worker i serves warehouse i mod W + 1 and district (i / W) mod 10 + 1,
// so threads spread over warehouses first.
func (r *run) newWorker(ctx context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return nil, cerr
	}
	return newTerminal(ctx, r, c, env)
}
