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
	// Run options.
	mode     string
	mee      string
	pipeline bool
}

// TPCE is the TPC-E-like workload with its options. Its methods are
// safe to call from one goroutine at a time; the Runs it opens hold
// their own copy of the options and everything their workers share.
type TPCE struct {
	opts options
	fs   *pflag.FlagSet
}

var _ workload.Workload = (*TPCE)(nil)

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
	fs.BoolVar(&o.pipeline, "pipeline", false, "client mode: send a transaction's statements that do not depend on each other's results together, BEGIN and COMMIT with them, in one round trip (PostgreSQL only: engines that do not pipeline refuse it)")
	w.fs = fs
	return w
}

// Define implements workload.Workload: the 33 tables in Load Units, the
// ten transactions and Data-Maintenance, the data options (every option
// that defines the data or how it is declared), the server-side code and
// Trade-Cleanup (Install), the checks, TR/s and the specification's
// validity figures, and the run defaults of a workload whose
// transactions set their own isolation levels.
func (w *TPCE) Define() workload.Spec {
	d := runDefaults()
	return workload.Spec{
		Meta:           meta(),
		Options:        w.fs,
		Validate:       w.validate,
		Supports:       w.supports,
		CheckIsolation: checkIsolation,
		Notes:          w.notes(),
		DataOptions:    []string{"customers", "itd", "scale-factor", "index-set", "fk", "seed-data", "news-size"},
		Tables:         w.tables,
		// Batch b of every scaling table is Load Unit b (a fixed
		// table's one batch counts with the first).
		BatchUnit: "load units",
		Install:   w.install,
		Uninstall: uninstall,
		Check:     w.check,
		CheckDoc: "The TPC-E-like database's integrity after a run: row counts of the fixed tables as loaded, every child row's parent, " +
			"settlements, cash and history for every completed trade, holding summaries equal to their holdings, brokers' trade counts and commissions, " +
			"and no trade request left for a completed trade. The transactions keep them; a Trade-Result cut half-way breaks them.",
		Ops:         ops(),
		Metrics:     metricNames(),
		RunDefaults: &d,
	}
}

// Open implements workload.Workload: the run holds the options as they
// are now, the customer emulator's environment and the market exchange
// emulators (the one of --mee shared, made by the first worker, or each
// worker's own). It refuses options that do not validate
// (ErrInvalidOptions).
func (w *TPCE) Open(_ context.Context, env workload.RunEnv) (*workload.Run, error) {
	if errs := w.validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	r, err := w.newRun(env.Now)
	if err != nil {
		return nil, err
	}
	return &workload.Run{NewWorker: r.newWorker, Metrics: r.metrics}, nil
}

// MaxCustomers bounds --customers: 10 million customers are thousands of
// times the studies' databases and tens of TB of data.
const MaxCustomers = 10_000_000

// validate reports every bad option at once, each naming its flag and
// value.
func (w *TPCE) validate() []error {
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

// supports refuses what the engine caps describes cannot run: the
// server-side modes without stored procedures (SQLite), and --pipeline
// where connections send one statement per round trip (SQLite,
// MySQL/MariaDB), which would run client mode unpipelined.
func (w *TPCE) supports(caps engine.Capabilities) []error {
	var errs []error
	o := &w.opts
	if o.mode != ModeClient && !caps.Procedures {
		errs = append(errs, &workload.OptionError{Flag: "mode", Value: o.mode, Err: fmt.Sprintf("%s has no stored procedures: it runs --mode client only", caps.Kind)})
	}
	if o.pipeline && o.mode == ModeClient && !caps.Pipelines {
		errs = append(errs, &workload.OptionError{Flag: "pipeline", Value: "true",
			Err: fmt.Sprintf("pipelines run on PostgreSQL only: %s sends one statement per round trip; leave --pipeline off", caps.Kind)})
	}
	return errs
}

// BelowMinimum says whether the database is smaller than the
// specification's minimum of 5,000 customers.
func (w *TPCE) BelowMinimum() bool { return w.opts.belowMinimum() }

func (o *options) belowMinimum() bool { return o.customers < DefaultCustomers }

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

// tables returns the 33 declared tables in creation order, with the index
// set's secondary indexes and, under --fk on a dialect that can add them
// to loaded tables, the specification's foreign keys (SQLite's tables have
// none). Batch b of every table that grows with the customers is Load
// Unit b, so Load Units load in parallel; a fixed table is one batch, and
// trade_request, empty at load, none (its key and index are still built).
// The options must have passed Validate: Tables returns nil otherwise.
func (w *TPCE) tables(d engine.Dialect) []workload.Table {
	if len(w.validate()) > 0 {
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

// check verifies the row counts the population fixes and the rules that
// tie the trades to their settlement, history, cash transactions,
// holdings and brokers (see package check).
func (w *TPCE) check(ctx context.Context, conn engine.Conn) ([]workload.Problem, error) {
	c, err := engine.SQL(conn)
	if err != nil {
		return nil, err
	}
	if errs := w.validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	src := newSource(w.config())
	return check.Check(ctx, c, check.Config{Customers: w.opts.customers, MaxInitialTradeID: src.maxInitialTradeID()})
}

// ErrInvalidOptions is returned by Check, Install and Open when the
// options do not validate; the wrapped errors name each bad flag.
var ErrInvalidOptions = errors.New("tpce: invalid options")

// ops lists the ten transactions, by their specification names in
// snake case, and Data-Maintenance (Trade-Cleanup runs in Install,
// before the workers, and is no op).
func ops() []workload.Op {
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

// runDefaults are the runner's defaults: no run-wide isolation level
// (each transaction sets its own, see checkIsolation), and
// workload.DefaultRetryPolicy's back-off with TradeResultRetries replays
// of serialization failures and deadlocks (--max-retries,
// --retry-backoff, --retry-backoff-max).
func runDefaults() workload.RunDefaults {
	p := workload.DefaultRetryPolicy()
	p.MaxRetries = TradeResultRetries
	return workload.RunDefaults{Retry: p}
}

// checkIsolation refuses a run-wide isolation level (--isolation): each
// transaction runs at its own level, DBT-5's choice (read committed for
// the readers, repeatable read for Market-Feed, Trade-Order and
// Trade-Update, serializable for Trade-Result), set by the worker before
// it where the engine has levels (SQLite runs everything serializable).
func checkIsolation(engine.Dialect, string) error {
	return errors.New("tpce sets each transaction's isolation level as the specification's drivers do (read committed, repeatable read for Market-Feed, Trade-Order and Trade-Update, serializable for Trade-Result); leave --isolation empty")
}

// runState is one run: its options and what its workers share,
// read-only but for the emulators (mu).
type runState struct {
	opts options
	env  *ce.Env
	mode mee.Mode
	now  func() time.Time

	// mu guards shared, --mee shared's emulator, made by the first
	// worker, and emus, the workers' own by worker id, kept for a worker
	// that reconnects (the runner makes it anew on its new connection).
	mu     sync.Mutex
	shared mee.Emulator
	emus   map[int]mee.Emulator
}

// newRun returns a run of the options, which must have passed validate,
// on the clock now (time.Now when nil).
func (w *TPCE) newRun(now func() time.Time) (*runState, error) {
	mode, err := mee.ParseMode(w.opts.mee)
	if err != nil {
		return nil, &workload.OptionError{Flag: "mee", Value: w.opts.mee, Err: err.Error()}
	}
	env, err := ce.NewEnv(newSource(w.config()).m)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &runState{opts: w.opts, env: env, mode: mode, now: now, emus: map[int]mee.Emulator{}}, nil
}

// install runs once before the workers start: it refuses a mode the
// target cannot run (Supports refused it already where the runner
// asked), installs the mode's server-side code, creates the trade id
// sequence (txn.Install) and runs Trade-Cleanup, which cancels the
// orders a run before left pending or submitted.
func (w *TPCE) install(ctx context.Context, conn engine.Conn) error {
	c, err := engine.SQL(conn)
	if err != nil {
		return err
	}
	if errs := w.validate(); len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	if errs := w.supports(c.Dialect().Capabilities()); len(errs) > 0 {
		return errors.Join(errs...)
	}
	env, err := ce.NewEnv(newSource(w.config()).m)
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
	tc := env.TradeCleanup()
	if _, err := cl.TradeCleanup(ctx, txn.TradeCleanupInput{StartTradeID: tc.StartTradeID}); err != nil {
		return fmt.Errorf("tpce: trade-cleanup: %w", err)
	}
	return nil
}

// uninstall drops the trade id sequence and any mode's server-side code.
func uninstall(ctx context.Context, conn engine.Conn) error {
	c, err := engine.SQL(conn)
	if err != nil {
		return err
	}
	if err := uninstallMode(ctx, c); err != nil {
		return err
	}
	return txn.Uninstall(ctx, c)
}

// emulator returns the market exchange emulator of worker id drawing
// from seed: its own (the same again when the worker reconnects, so the
// orders it holds still come back), or the shared one.
func (r *runState) emulator(seed uint64, id int) mee.Emulator {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.env.Model()
	if !r.mode.Shared {
		e, ok := r.emus[id]
		if !ok {
			e = mee.New(m, gen.NewRand(seed, tagMarket, uint64(id)))
			r.emus[id] = e
		}
		return e
	}
	if r.shared == nil {
		r.shared = mee.NewShared(m, gen.NewRand(seed, tagMarket, 0), r.mode.Deliveries)
	}
	return r.shared
}

// newWorker returns a customer emulator on its own connection, with its
// own deck and random stream (from env.Seed), and its market exchange
// emulator (or the shared one under --mee shared). Worker 0 also runs
// Data-Maintenance every DataMaintenanceInterval.
func (r *runState) newWorker(ctx context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	c, err := engine.SQL(conn)
	if err != nil {
		return nil, err
	}
	emu := r.emulator(env.Seed, env.ID)
	ex, err := newExecutor(ctx, r.opts.mode, c, r.opts.pipeline)
	if err != nil {
		return nil, err
	}
	q := env.Queries
	if q == nil {
		q = &workload.Queries{}
	}
	k := newWorker(r.env, ex, emu, env.ID, env.Seed, q, r.now)
	// The engine sets the levels the transactions ask for; SQLite's has
	// one level, serializable.
	if c.Dialect().Capabilities().Isolates(engine.ReadCommitted) {
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

// notes are the remarks on the options (Spec.Notes): a scale below the
// specification's minimum and initial trade days other than its 300 are
// allowed, and said; so is --mee shared, whose single emulator bounds
// TR/s.
func (w *TPCE) notes() []string {
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
