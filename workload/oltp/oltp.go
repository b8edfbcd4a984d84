package oltp

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
)

// version changes whenever data or transactions change in a way that makes
// results incomparable with earlier ones.
const version = "1"

// EventKind is the shape of one variant's event.
type EventKind uint8

const (
	// EventGroups runs statement groups in sysbench's order (point
	// selects, ranges, index updates, non-index updates, delete/inserts),
	// optionally inside BEGIN … COMMIT.
	EventGroups EventKind = iota
	// EventInsert is oltp_insert: one INSERT per event.
	EventInsert
	// EventDelete is oltp_delete: one DELETE per event.
	EventDelete
	// EventPct is oltp_read_write_pct: one point select or one index
	// update per event, chosen by --read-percent / --write-percent.
	EventPct
)

// variant is one registered sysbench test: which statement groups an event
// runs and whether it wraps them in a transaction.
type variant struct {
	name string
	desc string
	kind EventKind

	trx        bool // BEGIN … COMMIT around the event unless --skip-trx
	points     bool
	ranges     bool // subject to --range-selects
	idxUpdates bool
	nonIdx     bool
	delIns     bool
	onePoint   bool // oltp_point_select: one point select per event, whatever --point-selects says
}

var variants = []*variant{
	{name: "oltp_point_select", desc: "sysbench oltp_point_select: one primary-key SELECT per event, autocommit",
		points: true, onePoint: true},
	{name: "oltp_read_only", desc: "sysbench oltp_read_only: point selects and range selects in a transaction",
		trx: true, points: true, ranges: true},
	{name: "oltp_read_write", desc: "sysbench oltp_read_write: point and range selects, updates, delete+insert in a transaction",
		trx: true, points: true, ranges: true, idxUpdates: true, nonIdx: true, delIns: true},
	{name: "oltp_write_only", desc: "sysbench oltp_write_only: index/non-index updates and delete+insert in a transaction",
		trx: true, idxUpdates: true, nonIdx: true, delIns: true},
	{name: "oltp_update_index", desc: "sysbench oltp_update_index: UPDATE of the indexed column k, autocommit",
		idxUpdates: true},
	{name: "oltp_update_non_index", desc: "sysbench oltp_update_non_index: UPDATE of the non-indexed column c, autocommit",
		nonIdx: true},
	{name: "oltp_insert", desc: "sysbench oltp_insert: one INSERT per event, autocommit", kind: EventInsert},
	{name: "oltp_delete", desc: "sysbench oltp_delete: one DELETE by primary key per event, autocommit", kind: EventDelete},
	{name: "oltp_read_write_pct", desc: "KubeBlocks oltp_read_write_pct: each event is one point select or one index update, by --read-percent/--write-percent",
		kind: EventPct, trx: true},
}

func init() {
	for _, v := range variants {
		v := v
		workload.Register(workload.Meta{
			Name:        v.name,
			Description: v.desc,
			Version:     version,
			New:         func() workload.Workload { return newWorkload(v) },
		})
	}
}

// Kind is the shape of the test's events.
func (w *Test) Kind() EventKind { return w.v.kind }

// Counts is how many statements of each group an event runs with these
// options (all zero unless Kind is EventGroups).
func (w *Test) Counts() GroupCounts { return w.v.counts(&w.opts) }

// Trx reports whether events run in a transaction, BEGIN … COMMIT (the
// test's own and not --skip-trx).
func (w *Test) Trx() bool { return w.v.trx && !w.opts.skipTrx }

// TableCount is --tables.
func (w *Test) TableCount() int { return w.opts.tables }

// CreateSecondary is --create-secondary: the index k_N on k of every
// table.
func (w *Test) CreateSecondary() bool { return w.opts.createSecondary }

// AutoInc is --auto-inc: the database assigns the ids of inserted rows.
func (w *Test) AutoInc() bool { return w.opts.autoInc }

// Names are the names the tests are registered under, in the order of
// sysbench's list.
func Names() []string {
	out := make([]string, len(variants))
	for i, v := range variants {
		out[i] = v.name
	}
	return out
}

// usesRanges reports whether events run range selects with these options.
func (v *variant) usesRanges(o *options) bool { return v.ranges && o.rangeSelects }

// count returns how many statements of one group an event runs.
func (v *variant) counts(o *options) GroupCounts {
	var c GroupCounts
	if v.kind != EventGroups {
		return c
	}
	if v.points {
		c.Points = o.pointSelects
		if v.onePoint {
			c.Points = 1
		}
	}
	if v.usesRanges(o) {
		c.Simple, c.Sum, c.Order, c.Distinct = o.simpleRanges, o.sumRanges, o.orderRanges, o.distinctRanges
	}
	if v.idxUpdates {
		c.IdxUpdates = o.indexUpdates
	}
	if v.nonIdx {
		c.NonIdx = o.nonIndexUpdates
	}
	if v.delIns {
		c.DelIns = o.deleteInserts
	}
	return c
}

// GroupCounts is the number of statements of each group in one event
// of EventGroups: point selects, the four kinds of range selects, index
// updates, non-index updates and delete/insert pairs, in sysbench's
// order.
type GroupCounts struct {
	Points, Simple, Sum, Order, Distinct, IdxUpdates, NonIdx, DelIns int
}

// Test is one sysbench test with its options, and its implementation for
// SQL engines. Define and Open are safe for concurrent use once the
// options are parsed. Its exported methods other than Define and Open
// (Kind, Counts, DataTables, CheckCount, …) are what the implementation
// for MongoDB (workload/oltp/mongo) shares.
type Test struct {
	v    *variant
	opts options
	fs   *pflag.FlagSet
}

var _ workload.Workload = (*Test)(nil)

func newWorkload(v *variant) *Test {
	w := &Test{v: v}
	w.fs = newFlagSet(v.name, v, &w.opts)
	return w
}

// Define describes the test with its options as set: sysbench's
// options, sbtest1..N, one op per test (two for oltp_read_write_pct),
// the check of the tables, and duplicate keys restarting the event. It
// has no figures of its own: Spec.Metrics is empty and the Run has no
// Metrics.
func (w *Test) Define() workload.Spec {
	return workload.Spec{
		Meta:        w.meta(),
		Options:     w.fs,
		Validate:    w.validate,
		DataOptions: dataOptions(),
		Tables:      w.tables,
		Check:       w.check,
		CheckDoc:    w.checkDoc(),
		Ops:         w.ops(),
		Retryable:   retryable,
	}
}

// Open starts a run: its workers share nothing but the options, so the
// Run holds no state of its own.
func (w *Test) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: w.sqlWorker}, nil
}

// meta is the registration record of this test.
func (w *Test) meta() workload.Meta {
	v := w.v
	return workload.Meta{Name: v.name, Description: v.desc, Version: version,
		New: func() workload.Workload { return newWorkload(v) }}
}

// dataOptions are the options that define the data: the number and size
// of the tables, their declaration (--auto-inc, --create-secondary) and
// the data's seed. The --rand-* options also draw k at prepare time, but
// mostly choose the rows a run touches, and sysbench runs vary them on
// the same data: they are not checked.
func dataOptions() []string {
	return []string{"tables", "table-size", "auto-inc", "create-secondary", "seed-data"}
}

// validate reports every bad option at once.
func (w *Test) validate() []error { return w.opts.validate(w.v) }

// retryable reports whether an error class restarts the event. Like
// sysbench's pgsql and mysql drivers (which ignore duplicate-key errors
// along with deadlocks and serialization failures), a duplicate key
// restarts the event: concurrent delete/insert pairs on one id, and
// inserts racing on client-generated ids, produce them in normal
// operation.
func retryable(c engine.ErrorClass) bool {
	return c == engine.ClassUniqueViolation
}

// ops lists the operations: one per test, named after it, except
// oltp_read_write_pct which reports its two kinds of events apart.
func (w *Test) ops() []workload.Op {
	if w.v.kind == EventPct {
		return []workload.Op{{Name: "point_select"}, {Name: "update_index"}}
	}
	return []workload.Op{{Name: w.v.name}}
}

// ErrInvalidOptions is returned by a worker's creation and Check when the options do not
// validate; the wrapped errors name each bad flag.
var ErrInvalidOptions = errors.New("oltp: invalid options")

// CheckOptions returns an error wrapping ErrInvalidOptions and every
// error of Spec.Validate, or nil when the options are valid.
func (w *Test) CheckOptions() error {
	if errs := w.validate(); len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	return nil
}

// TableName is sysbench's table name for table number n (1-based).
func TableName(n int) string { return fmt.Sprintf("sbtest%d", n) }

// batchRows is the number of rows in one batch of initial data.
const batchRows = 10000

// loadsRows reports whether prepare loads --table-size rows. Like
// sysbench, oltp_insert with --auto-inc=false creates empty tables, since
// preloaded ids could collide with the client-generated ones.
func (w *Test) loadsRows() bool {
	return !(w.v.kind == EventInsert && !w.opts.autoInc)
}

// tables returns sbtest1..N, declared (see declare) with their initial
// data, for every engine family (workload/oltp/mongo's too).
func (w *Test) tables(engine.Dialect) []workload.Table {
	out := w.DataTables()
	for i := range out {
		out[i].Schema = w.declare(i + 1)
	}
	return out
}

// declare is table n: sysbench's schema (id, k, c CHAR(120), pad
// CHAR(60), primary key on id, a serial id under --auto-inc) and the
// secondary index k_N on k (--create-secondary). On MongoDB id is the
// documents' _id.
func (w *Test) declare(n int) *schema.Table {
	id := schema.Column{Name: "id", Type: schema.Int}
	if w.opts.autoInc {
		id.Type = schema.Serial
	}
	t := &schema.Table{
		Name: TableName(n),
		Columns: []schema.Column{
			id,
			{Name: "k", Type: schema.Int, Default: 0},
			{Name: "c", Type: schema.Char, Size: 120, Default: ""},
			{Name: "pad", Type: schema.Char, Size: 60, Default: ""},
		},
		PrimaryKey: []string{"id"},
	}
	if w.opts.createSecondary {
		t.Indexes = []schema.Index{{Name: fmt.Sprintf("k_%d", n), Keys: []schema.Key{schema.Col("k")}}}
	}
	return t
}

// DataTables are sbtest1..N with their initial data, for any engine
// family: names, batches and rows, without their declarations.
func (w *Test) DataTables() []workload.Table {
	o := &w.opts
	dc, err := o.distConfig()
	if err != nil {
		// Tables has no error return; an invalid --rand-type is reported
		// by Spec.Validate, which the runner calls first.
		dc, _ = newDistConfig(distUniform, defRandSpecIter, defRandSpecPct, defRandSpecRes, defRandParetoH, defRandZipfianExp)
	}
	batches := 0
	if w.loadsRows() && o.tableSize > 0 {
		batches = (o.tableSize + batchRows - 1) / batchRows
	}
	out := make([]workload.Table, 0, o.tables)
	for n := 1; n <= o.tables; n++ {
		gen := dataGen{seed: o.seedData, table: n, tableSize: o.tableSize, dist: dc}
		out = append(out, workload.Table{Name: TableName(n), Batches: batches, Rows: gen.rows})
	}
	return out
}

// sqlWorker prepares, on c, the statements the test runs on every table
// and returns a worker with its own random source seeded from env.Seed.
func (w *Test) sqlWorker(ctx context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	if err := w.CheckOptions(); err != nil {
		return nil, err
	}
	c, err := engine.SQL(conn)
	if err != nil {
		return nil, err
	}
	return newWorker(ctx, w, c, env)
}
