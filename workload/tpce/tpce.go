package tpce

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	wschema "github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/ce"
	"github.com/dbarena/dbarena/workload/tpce/internal/check"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/mee"
	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
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
			"the specification's ten transactions dealt from its 890-card deck, a market exchange emulator per worker, Data-Maintenance and Trade-Cleanup; TR/s. " +
			"Its own data generator, not comparable to published TPC-E results",
		Version: version,
		New:     func() workload.Workload { return workload.Adapt(New()) },
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
	// Run options.
	mode     string
	mee      string
	pipeline bool
}

// TPCE is the TPC-E-like workload with its options.
type TPCE struct {
	opts options
	fs   *pflag.FlagSet

	// mu guards run, the state a run's workers share: made by Install,
	// or by the first NewWorker without one.
	mu  sync.Mutex
	run *runState
}

var (
	_ workload.Legacy       = (*TPCE)(nil)
	_ workload.Validator    = (*TPCE)(nil)
	_ workload.DataOptioner = (*TPCE)(nil)
	_ workload.Checker      = (*TPCE)(nil)
	_ workload.BatchUnit    = (*TPCE)(nil)
	_ workload.Installer    = (*TPCE)(nil)
	_ workload.Reporter     = (*TPCE)(nil)
	_ workload.Noter        = (*TPCE)(nil)
	_ workload.RunDefaulter = (*TPCE)(nil)

	_ workload.IsolationChecker = (*TPCE)(nil)
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
	fs.StringVar(&o.mode, "mode", ModeClient, "where the transactions' logic runs: client (prepared statements sent by dbarena), procedure (one server-side function per transaction) or frames (one per frame, as DBT-5); "+
		"SQLite runs client mode only")
	fs.StringVar(&o.mee, "mee", "worker", "market exchange emulator: worker (also per-worker: one per worker, no shared lock), shared (one for every worker with one Trade-Result or Market-Feed in flight, as DBT-5's) or shared:N (one with N in flight)")
	fs.BoolVar(&o.pipeline, "pipeline", false, "client mode: send a transaction's statements that do not depend on each other's results together, BEGIN and COMMIT with them, in one round trip where the engine pipelines")
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
// MaxCustomers bounds --customers: 10 million customers are thousands of
// times the studies' databases and tens of TB of data.
const MaxCustomers = 10_000_000

func (w *TPCE) Validate() []error {
	var errs []error
	o := &w.opts
	if o.customers < gen.LoadUnit || o.customers%gen.LoadUnit != 0 {
		errs = append(errs, &workload.OptionError{Flag: "customers", Value: fmt.Sprint(o.customers),
			Err: fmt.Sprintf("must be a positive multiple of %d (whole Load Units)", gen.LoadUnit)})
	}
	if o.customers > MaxCustomers {
		errs = append(errs, &workload.OptionError{Flag: "customers", Value: fmt.Sprint(o.customers),
			Err: fmt.Sprintf("at most %d (%d Load Units, several TB of data)", MaxCustomers, MaxCustomers/gen.LoadUnit)})
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
	switch o.mode {
	case ModeClient, ModeProcedure, ModeFrames:
	default:
		errs = append(errs, &workload.OptionError{Flag: "mode", Value: o.mode, Err: "must be client, procedure or frames"})
	}
	if o.pipeline && o.mode != ModeClient {
		errs = append(errs, &workload.OptionError{Flag: "pipeline", Value: "true", Err: fmt.Sprintf("pipelines client mode's statements; --mode %s runs each transaction (frame) as one call", o.mode)})
	}
	if _, err := mee.ParseMode(o.mee); err != nil {
		errs = append(errs, &workload.OptionError{Flag: "mee", Value: o.mee, Err: "must be worker (or per-worker), shared or shared:N with N at least 1"})
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

// Ops lists the ten transactions, by their specification names in
// snake case, and Data-Maintenance (Trade-Cleanup runs in Install,
// before the workers, and is no op).
func (w *TPCE) Ops() []workload.Op {
	out := make([]workload.Op, numOps)
	for i, n := range opNames {
		out[i] = workload.Op{Name: n}
	}
	return out
}

// TradeResultRetries is the default of --max-retries: Trade-Results run
// serializable and write recent trades and the ten brokers of a Load
// Unit, so concurrent ones conflict often (on PostgreSQL, about one
// replay for every three Trade-Results at 8 workers and 1,000
// customers, most of them on the trade's index pages), and the
// specification wants serialization failures resubmitted, not given up.
const TradeResultRetries = 50

// RunDefaults are the runner's defaults: no run-wide isolation level
// (each transaction sets its own, see CheckIsolation), and
// workload.DefaultRetryPolicy's back-off with TradeResultRetries replays
// of serialization failures and deadlocks (--max-retries,
// --retry-backoff, --retry-backoff-max).
func (w *TPCE) RunDefaults() workload.RunDefaults {
	p := workload.DefaultRetryPolicy()
	p.MaxRetries = TradeResultRetries
	return workload.RunDefaults{Retry: p}
}

// CheckIsolation refuses a run-wide isolation level (--isolation): each
// transaction runs at its own level, DBT-5's choice (read committed for
// the readers, repeatable read for Market-Feed, Trade-Order and
// Trade-Update, serializable for Trade-Result), set by the worker before
// it where the engine has levels (SQLite runs everything serializable).
func (w *TPCE) CheckIsolation(engine.Dialect, string) error {
	return errors.New("tpce sets each transaction's isolation level as the specification's drivers do (read committed, repeatable read for Market-Feed, Trade-Order and Trade-Update, serializable for Trade-Result); leave --isolation empty")
}

// runState is what a run's workers share, read-only but for the shared
// emulator (safe for concurrent use).
type runState struct {
	env  *ce.Env
	mode mee.Mode
	// shared is --mee shared's emulator, made by the first worker;
	// emus are the workers' own, by worker id, kept for a worker that
	// reconnects (the runner makes it anew on its new connection).
	shared mee.Emulator
	emus   map[int]mee.Emulator
}

// newRun returns a run's state for the options, which must have passed
// Validate.
func (w *TPCE) newRun() (*runState, error) {
	mode, err := mee.ParseMode(w.opts.mee)
	if err != nil {
		return nil, &workload.OptionError{Flag: "mee", Value: w.opts.mee, Err: err.Error()}
	}
	env, err := ce.NewEnv(newSource(w.config()).m)
	if err != nil {
		return nil, err
	}
	return &runState{env: env, mode: mode, emus: map[int]mee.Emulator{}}, nil
}

// Install runs once before the workers start: it refuses a mode the
// target cannot run (procedure and frames on SQLite), installs the
// mode's server-side code, creates the trade id sequence (txn.Install)
// and runs Trade-Cleanup, which cancels the orders a run before left
// pending or submitted. It also starts the run's shared state afresh
// (the shared emulator of --mee shared).
func (w *TPCE) Install(ctx context.Context, conn engine.Conn) error {
	c, err := engine.SQL(conn)
	if err != nil {
		return err
	}
	if errs := w.Validate(); len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	if w.opts.mode != ModeClient && !c.Dialect().Capabilities().Procedures {
		return &workload.OptionError{Flag: "mode", Value: w.opts.mode, Err: c.Dialect().Name() + " has no stored procedures: it runs --mode client only"}
	}
	run, err := w.newRun()
	if err != nil {
		return err
	}
	if err := installMode(ctx, w.opts.mode, c); err != nil {
		return err
	}
	if err := txn.Install(ctx, c); err != nil {
		return err
	}
	cl, err := txn.New(ctx, c)
	if err != nil {
		return err
	}
	tc := run.env.TradeCleanup()
	if _, err := cl.TradeCleanup(ctx, txn.TradeCleanupInput{StartTradeID: tc.StartTradeID}); err != nil {
		return fmt.Errorf("tpce: trade-cleanup: %w", err)
	}
	w.mu.Lock()
	w.run = run
	w.mu.Unlock()
	return nil
}

// Uninstall drops the trade id sequence and any mode's server-side code.
func (w *TPCE) Uninstall(ctx context.Context, conn engine.Conn) error {
	c, err := engine.SQL(conn)
	if err != nil {
		return err
	}
	if err := uninstallMode(ctx, c); err != nil {
		return err
	}
	return txn.Uninstall(ctx, c)
}

// state returns the run's shared state (made now when Install did not
// run) and the emulator of worker id drawing from seed: its own (the
// same again when the worker reconnects, so the orders it holds still
// come back), or the shared one.
func (w *TPCE) state(seed uint64, id int) (*runState, mee.Emulator, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.run == nil {
		run, err := w.newRun()
		if err != nil {
			return nil, nil, err
		}
		w.run = run
	}
	run := w.run
	m := run.env.Model()
	if !run.mode.Shared {
		e, ok := run.emus[id]
		if !ok {
			e = mee.New(m, gen.NewRand(seed, tagMarket, uint64(id)))
			run.emus[id] = e
		}
		return run, e, nil
	}
	if run.shared == nil {
		run.shared = mee.NewShared(m, gen.NewRand(seed, tagMarket, 0), run.mode.Deliveries)
	}
	return run, run.shared, nil
}

// NewWorker returns a customer emulator on its own connection, with its
// own deck and random stream (from env.Seed), and its market exchange
// emulator (or the shared one under --mee shared). Worker 0 also runs
// Data-Maintenance every DataMaintenanceInterval.
func (w *TPCE) NewWorker(ctx context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	c, err := engine.SQL(conn)
	if err != nil {
		return nil, err
	}
	if errs := w.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	run, emu, err := w.state(env.Seed, env.ID)
	if err != nil {
		return nil, err
	}
	ex, err := newExecutor(ctx, w.opts.mode, c, w.opts.pipeline)
	if err != nil {
		return nil, err
	}
	q := env.Queries
	if q == nil {
		q = &workload.Queries{}
	}
	k := newWorker(run.env, ex, emu, env.ID, env.Seed, q, time.Now)
	if levels(c.Dialect()) {
		// Client mode sets levels itself: pipelining, each BEGIN carries
		// one (txn.Client.SetIsolation).
		if l, ok := ex.(interface {
			SetIsolation(context.Context, string) error
		}); ok {
			k.setLevel = l.SetIsolation
		} else {
			k.setLevel = func(ctx context.Context, level string) error {
				q.Other++
				return engine.SetIsolation(ctx, c, level)
			}
		}
	}
	return k, nil
}

// levels says whether d sets the isolation levels the transactions ask
// for; SQLite's has one level, serializable.
func levels(d engine.Dialect) bool {
	iso, ok := d.(engine.Isolator)
	if !ok {
		return false
	}
	_, err := iso.IsolationSQL(engine.ReadCommitted)
	return err == nil
}

// Notes implements workload.Noter: a scale below the specification's
// minimum and initial trade days other than its 300 are allowed, and said;
// so is --mee shared, whose single emulator bounds TR/s.
func (w *TPCE) Notes() []string {
	var out []string
	if w.BelowMinimum() {
		out = append(out, fmt.Sprintf("--customers %d is below the specification's minimum of %d customers: a run's result is flagged so", w.opts.customers, DefaultCustomers))
	}
	if w.opts.itd != DefaultITD {
		out = append(out, fmt.Sprintf("--itd %d: the specification's initial trade days are %d: a run's result is flagged so", w.opts.itd, DefaultITD))
	}
	if m, err := mee.ParseMode(w.opts.mee); err == nil && m.Shared {
		out = append(out, fmt.Sprintf("--mee %s: one market exchange emulator for every worker, at most %d Trade-Result or Market-Feed in flight (DBT-5's has one): it bounds TR/s", w.opts.mee, m.Deliveries))
	}
	return out
}
