package oltp

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/schema"
)

// version changes whenever data or transactions change in a way that makes
// results incomparable with earlier ones.
const version = "1"

// eventKind is the shape of one variant's event.
type eventKind uint8

const (
	// eventGroups runs statement groups in sysbench's order (point
	// selects, ranges, index updates, non-index updates, delete/inserts),
	// optionally inside BEGIN … COMMIT.
	eventGroups eventKind = iota
	// eventInsert is oltp_insert: one INSERT per event.
	eventInsert
	// eventDelete is oltp_delete: one DELETE per event.
	eventDelete
	// eventPct is oltp_read_write_pct: one point select or one index
	// update per event, chosen by --read-percent / --write-percent.
	eventPct
)

// variant is one registered sysbench test: which statement groups an event
// runs and whether it wraps them in a transaction.
type variant struct {
	name string
	desc string
	kind eventKind

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
	{name: "oltp_insert", desc: "sysbench oltp_insert: one INSERT per event, autocommit", kind: eventInsert},
	{name: "oltp_delete", desc: "sysbench oltp_delete: one DELETE by primary key per event, autocommit", kind: eventDelete},
	{name: "oltp_read_write_pct", desc: "KubeBlocks oltp_read_write_pct: each event is one point select or one index update, by --read-percent/--write-percent",
		kind: eventPct, trx: true},
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

// usesRanges reports whether events run range selects with these options.
func (v *variant) usesRanges(o *options) bool { return v.ranges && o.rangeSelects }

// count returns how many statements of one group an event runs.
func (v *variant) counts(o *options) groupCounts {
	var c groupCounts
	if v.kind != eventGroups {
		return c
	}
	if v.points {
		c.points = o.pointSelects
		if v.onePoint {
			c.points = 1
		}
	}
	if v.usesRanges(o) {
		c.simple, c.sum, c.order, c.distinct = o.simpleRanges, o.sumRanges, o.orderRanges, o.distinctRanges
	}
	if v.idxUpdates {
		c.idxUpdates = o.indexUpdates
	}
	if v.nonIdx {
		c.nonIdx = o.nonIndexUpdates
	}
	if v.delIns {
		c.delIns = o.deleteInserts
	}
	return c
}

// groupCounts is the number of statements of each group in one event.
type groupCounts struct {
	points, simple, sum, order, distinct, idxUpdates, nonIdx, delIns int
}

// oltp is one sysbench test with its options. Its methods other than
// Flags-parsing are safe for concurrent use once the flags are parsed.
type oltp struct {
	v    *variant
	opts options
	fs   *pflag.FlagSet
}

var (
	_ workload.Workload  = (*oltp)(nil)
	_ workload.Validator = (*oltp)(nil)
	_ workload.Retryer   = (*oltp)(nil)
	_ workload.Checker   = (*oltp)(nil)
	_ workload.Supporter = (*oltp)(nil)
)

func newWorkload(v *variant) *oltp {
	w := &oltp{v: v}
	w.fs = newFlagSet(v.name, v, &w.opts)
	return w
}

// Meta returns the registration record of this test.
func (w *oltp) Meta() workload.Meta {
	v := w.v
	return workload.Meta{Name: v.name, Description: v.desc, Version: version,
		New: func() workload.Workload { return newWorkload(v) }}
}

// Flags returns the test's options, sysbench's names with dashes.
func (w *oltp) Flags() *pflag.FlagSet { return w.fs }

// Validate reports every bad option at once.
func (w *oltp) Validate() []error { return w.opts.validate(w.v) }

// Retryable reports whether an error class restarts the event. Like
// sysbench's pgsql and mysql drivers (which ignore duplicate-key errors
// along with deadlocks and serialization failures), a duplicate key
// restarts the event: concurrent delete/insert pairs on one id, and
// inserts racing on client-generated ids, produce them in normal
// operation.
func (w *oltp) Retryable(c engine.ErrorClass) bool {
	return c == engine.ClassUniqueViolation
}

// Ops lists the operations: one per test, named after it, except
// oltp_read_write_pct which reports its two kinds of events apart.
func (w *oltp) Ops() []workload.Op {
	if w.v.kind == eventPct {
		return []workload.Op{{Name: "point_select"}, {Name: "update_index"}}
	}
	return []workload.Op{{Name: w.v.name}}
}

// ErrInvalidOptions is returned by NewWorker when the options do not
// validate; the wrapped errors name each bad flag.
var ErrInvalidOptions = errors.New("oltp: invalid options")

func (w *oltp) checkOptions() error {
	if errs := w.Validate(); len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	return nil
}

// tableName is sysbench's table name for table number n (1-based).
func tableName(n int) string { return fmt.Sprintf("sbtest%d", n) }

// batchRows is the number of rows in one batch of initial data.
const batchRows = 10000

// loadsRows reports whether prepare loads --table-size rows. Like
// sysbench, oltp_insert with --auto-inc=false creates empty tables, since
// preloaded ids could collide with the client-generated ones.
func (w *oltp) loadsRows() bool {
	return !(w.v.kind == eventInsert && !w.opts.autoInc)
}

// Tables returns sbtest1..N, declared (see declare) with their initial
// data, for every engine.
func (w *oltp) Tables(engine.Dialect) []workload.Table {
	out := w.dataTables()
	for i := range out {
		out[i].Schema = w.declare(i + 1)
	}
	return out
}

// declare is table n: sysbench's schema (id, k, c CHAR(120), pad
// CHAR(60), primary key on id, a serial id under --auto-inc) and the
// secondary index k_N on k (--create-secondary). On MongoDB id is the
// documents' _id.
func (w *oltp) declare(n int) *schema.Table {
	id := schema.Column{Name: "id", Type: schema.Int}
	if w.opts.autoInc {
		id.Type = schema.Serial
	}
	t := &schema.Table{
		Name: tableName(n),
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

// dataTables are sbtest1..N with their initial data, for any engine.
func (w *oltp) dataTables() []workload.Table {
	o := &w.opts
	dc, err := o.distConfig()
	if err != nil {
		// Tables has no error return; an invalid --rand-type is reported
		// by Validate, which the runner calls first.
		dc, _ = newDistConfig(distUniform, defRandSpecIter, defRandSpecPct, defRandSpecRes, defRandParetoH, defRandZipfianExp)
	}
	batches := 0
	if w.loadsRows() && o.tableSize > 0 {
		batches = (o.tableSize + batchRows - 1) / batchRows
	}
	out := make([]workload.Table, 0, o.tables)
	for n := 1; n <= o.tables; n++ {
		gen := dataGen{seed: o.seedData, table: n, tableSize: o.tableSize, dist: dc}
		out = append(out, workload.Table{Name: tableName(n), Batches: batches, Rows: gen.rows})
	}
	return out
}

// NewWorker prepares, on c, the statements the test runs on every table
// and returns a worker with its own random source seeded from env.Seed.
func (w *oltp) NewWorker(ctx context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	if err := w.checkOptions(); err != nil {
		return nil, err
	}
	if mc, ok := conn.(*mongo.Conn); ok {
		return newMongoWorker(w, mc, env)
	}
	c, err := engine.SQL(conn)
	if err != nil {
		return nil, err
	}
	return newWorker(ctx, w, c, env)
}
