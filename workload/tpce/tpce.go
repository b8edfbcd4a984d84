package tpce

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
	wschema "github.com/dbarena/dbarena/workload/schema"
	"github.com/dbarena/dbarena/workload/tpce/internal/check"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

// Name is the workload's registered name.
const Name = "tpce"

// version changes whenever the data or the transactions change in a way
// that makes results incomparable with earlier ones.
const version = "1"

// Defaults and limits of the options.
const (
	// DefaultCustomers is the specification's minimum database: five Load
	// Units of 1,000 customers.
	DefaultCustomers = 5000
	// DefaultITD is the specification's 300 initial trade days.
	DefaultITD = 300
	// DefaultNewsSize is the specification's news item: 100,000 bytes,
	// also the most --news-size takes.
	DefaultNewsSize = 100000
)

func init() {
	workload.Register(meta())
}

func meta() workload.Meta {
	return workload.Meta{
		Name: Name,
		Description: "TPC-E-like brokerage (33 tables, customers in Load Units of 1,000, simulated initial trades); " +
			"its own data generator, not comparable to published TPC-E results. Only prepare, check and cleanup so far",
		Version: version,
		New:     func() workload.Workload { return New() },
	}
}

type options struct {
	customers   int64
	itd         int
	scaleFactor int
	indexSet    string
	fk          bool
	seedData    uint64
	newsSize    int
}

// TPCE is the TPC-E-like workload with its options.
type TPCE struct {
	opts options
	fs   *pflag.FlagSet
}

var (
	_ workload.Workload     = (*TPCE)(nil)
	_ workload.Validator    = (*TPCE)(nil)
	_ workload.DataOptioner = (*TPCE)(nil)
	_ workload.Checker      = (*TPCE)(nil)
	_ workload.BatchUnit    = (*TPCE)(nil)
	_ workload.Installer    = (*TPCE)(nil)
	_ workload.Reporter     = (*TPCE)(nil)
)

// New returns the workload with default options.
func New() *TPCE {
	w := &TPCE{}
	fs := pflag.NewFlagSet(Name, pflag.ContinueOnError)
	o := &w.opts
	fs.Int64Var(&o.customers, "customers", DefaultCustomers, "number of customers, a positive multiple of 1000 (each Load Unit of 1,000 customers brings 500 companies, 685 securities and 10 brokers); "+
		"fewer than 5000 is below the specification's minimum, and a run's result says so")
	fs.IntVar(&o.itd, "itd", DefaultITD, "initial trade days: the trading days (8 hours each) of trades simulated into the initial data; the specification's 300, study 000 used 60")
	fs.IntVar(&o.scaleFactor, "scale-factor", gen.DefaultScaleFactor, "customers per trade a second of the initial trades (the specification's 500)")
	fs.StringVar(&o.indexSet, "index-set", schema.SetDBT5, "secondary indexes: dbt5 (the DBT-5 kit's), study (dbt5 plus trade (t_ca_id, t_dts) and (t_s_symb, t_dts), as study 000) or tuned (study, daily_market keyed by symbol first, without the indexes that makes redundant)")
	fs.BoolVar(&o.fk, "fk", true, "declare the specification's foreign keys, added after the load (PostgreSQL, MySQL/MariaDB; SQLite cannot add foreign keys to loaded tables, so its tables have none)")
	fs.Uint64Var(&o.seedData, "seed-data", 0, "seed of the initial data: the same seed and options always load the same rows")
	fs.IntVar(&o.newsSize, "news-size", DefaultNewsSize, "bytes of each news item (ni_item), at most the specification's 100000; smaller loads faster")
	w.fs = fs
	return w
}

// Meta returns the registration record.
func (w *TPCE) Meta() workload.Meta { return meta() }

// Flags returns the options.
func (w *TPCE) Flags() *pflag.FlagSet { return w.fs }

// DataOptions implements workload.DataOptioner: every option defines the
// data or how it is declared.
func (w *TPCE) DataOptions() []string {
	return []string{"customers", "itd", "scale-factor", "index-set", "fk", "seed-data", "news-size"}
}

// Validate reports every bad option at once, each naming its flag and
// value.
func (w *TPCE) Validate() []error {
	var errs []error
	o := &w.opts
	if o.customers < gen.LoadUnit || o.customers%gen.LoadUnit != 0 {
		errs = append(errs, &workload.OptionError{Flag: "customers", Value: fmt.Sprint(o.customers),
			Err: fmt.Sprintf("must be a positive multiple of %d (whole Load Units)", gen.LoadUnit)})
	}
	if o.itd < 1 {
		errs = append(errs, &workload.OptionError{Flag: "itd", Value: fmt.Sprint(o.itd), Err: "must be at least 1"})
	}
	if o.scaleFactor < 1 {
		errs = append(errs, &workload.OptionError{Flag: "scale-factor", Value: fmt.Sprint(o.scaleFactor), Err: "must be at least 1"})
	}
	if _, err := schema.Declared(o.indexSet, o.fk); err != nil {
		errs = append(errs, &workload.OptionError{Flag: "index-set", Value: o.indexSet, Err: "must be dbt5, study or tuned"})
	}
	if o.newsSize < 0 || o.newsSize > DefaultNewsSize {
		errs = append(errs, &workload.OptionError{Flag: "news-size", Value: fmt.Sprint(o.newsSize), Err: fmt.Sprintf("must be between 0 and %d", DefaultNewsSize)})
	}
	return errs
}

// BelowMinimum says whether the database is smaller than the
// specification's minimum of 5,000 customers.
func (w *TPCE) BelowMinimum() bool { return w.opts.customers < DefaultCustomers }

// config is the generator's configuration of the options.
func (w *TPCE) config() gen.Config {
	o := &w.opts
	return gen.Config{Seed: o.seedData, Customers: o.customers, ITD: o.itd, ScaleFactor: o.scaleFactor, NewsSize: o.newsSize}
}

// addsForeignKeys says whether d can add foreign keys to loaded tables:
// SQLite's dialect refuses a table that has any.
func addsForeignKeys(d engine.Dialect) bool {
	r, ok := d.(engine.SchemaRenderer)
	if !ok {
		return true
	}
	_, err := r.ForeignKeySQL(&schema.Table{Name: "probe", ForeignKeys: []wschema.ForeignKey{{Name: "probe_fk"}}})
	return !errors.Is(err, engine.ErrNoForeignKeys)
}

// Tables returns the 33 declared tables in creation order, with the index
// set's secondary indexes and, under --fk on a dialect that can add them
// to loaded tables, the specification's foreign keys (SQLite's tables have
// none). Batch b of every table that grows with the customers is Load
// Unit b, so Load Units load in parallel; a fixed table is one batch, and
// trade_request, empty at load, none (its key and index are still built).
// The options must have passed Validate: Tables returns nil otherwise.
func (w *TPCE) Tables(d engine.Dialect) []workload.Table {
	if len(w.Validate()) > 0 {
		return nil
	}
	decl, err := schema.Declared(w.opts.indexSet, w.opts.fk && addsForeignKeys(d))
	if err != nil {
		return nil
	}
	src := newSource(w.config())
	out := make([]workload.Table, 0, len(decl))
	for _, t := range decl {
		name := t.Name
		out = append(out, workload.Table{
			Schema:  t,
			Name:    name,
			Batches: src.batches(name),
			Rows:    func(b int) engine.RowSource { return src.rows(name, b) },
		})
	}
	return out
}

// BatchUnit names what a batch index is: batch b of every scaling table
// is Load Unit b (a fixed table's one batch counts with the first).
func (w *TPCE) BatchUnit() string { return "load units" }

// Check verifies the row counts the population fixes and the rules that
// tie the trades to their settlement, history, cash transactions,
// holdings and brokers (see package check).
func (w *TPCE) Check(ctx context.Context, conn engine.Conn) ([]workload.Problem, error) {
	c, err := engine.SQL(conn)
	if err != nil {
		return nil, err
	}
	if errs := w.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	src := newSource(w.config())
	return check.Check(ctx, c, check.Config{Customers: w.opts.customers, MaxInitialTradeID: src.maxInitialTradeID()})
}

// ErrInvalidOptions is returned by Check when the options do not
// validate; the wrapped errors name each bad flag.
var ErrInvalidOptions = errors.New("tpce: invalid options")

// ErrNoTransactions is returned by Install and NewWorker: the workload's
// transactions are not part of dbarena yet, so a run stops before its
// workers start.
var ErrNoTransactions = errors.New("tpce has no transactions yet: only dbarena prepare, check and cleanup work for tpce")

// Ops lists the operations a worker reports: none yet (see
// ErrNoTransactions).
func (w *TPCE) Ops() []workload.Op { return nil }

// Install refuses the run with ErrNoTransactions; the runner calls it
// before any worker starts.
func (w *TPCE) Install(context.Context, engine.Conn) error { return ErrNoTransactions }

// Uninstall has nothing to drop.
func (w *TPCE) Uninstall(context.Context, engine.Conn) error { return nil }

// NewWorker returns ErrNoTransactions.
func (w *TPCE) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return nil, ErrNoTransactions
}

// Notes implements workload.Noter: a scale below the specification's
// minimum and initial trade days other than its 300 are allowed, and said.
func (w *TPCE) Notes() []string {
	var out []string
	if w.BelowMinimum() {
		out = append(out, fmt.Sprintf("--customers %d is below the specification's minimum of %d customers: a run's result is flagged so", w.opts.customers, DefaultCustomers))
	}
	if w.opts.itd != DefaultITD {
		out = append(out, fmt.Sprintf("--itd %d: the specification's initial trade days are %d: a run's result is flagged so", w.opts.itd, DefaultITD))
	}
	return out
}

// Metrics implements workload.Reporter: for the whole measured phase,
// the specification's rules on the database's size as validity flags
// (TPC-E-like results state them, they are not enforced): at least 5,000
// customers, and 300 initial trade days.
func (w *TPCE) Metrics(s workload.Span) []result.Metric {
	if !s.Final {
		return nil
	}
	flag := func(ok bool) *bool { return &ok }
	limit := func(v float64) *float64 { return &v }
	return []result.Metric{
		{Name: "customers_vs_spec_minimum", Value: float64(w.opts.customers), Limit: limit(DefaultCustomers), Pass: flag(!w.BelowMinimum()), Higher: true},
		{Name: "initial_trade_days_vs_spec", Value: float64(w.opts.itd), Limit: limit(DefaultITD), Pass: flag(w.opts.itd == DefaultITD)},
	}
}
