package oltp

import (
	"context"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// The statements of sysbench's oltp_common.lua, written with '?'
// placeholders (the engines rebind them). %d is the table number.
const (
	sqlPointSelect   = "SELECT c FROM sbtest%d WHERE id=?"
	sqlSimpleRange   = "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?"
	sqlSumRange      = "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?"
	sqlOrderRange    = "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c"
	sqlDistinctRange = "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c"
	sqlIndexUpdate   = "UPDATE sbtest%d SET k=k+1 WHERE id=?"
	sqlNonIndexUpd   = "UPDATE sbtest%d SET c=? WHERE id=?"
	sqlDelete        = "DELETE FROM sbtest%d WHERE id=?"
	sqlInsert        = "INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)"
	// oltp_insert with --auto-inc lets the database assign the id. sysbench
	// does this on PostgreSQL; on MySQL it sends id 0, which AUTO_INCREMENT
	// turns into the next value, so both are the same statement in effect.
	sqlInsertAutoID = "INSERT INTO sbtest%d (k, c, pad) VALUES (?, ?, ?)"
)

// tableStmts holds one table's prepared statements; those the test does
// not run stay nil.
type tableStmts struct {
	point, simple, sum, order, distinct engine.Stmt
	idxUpdate, nonIdxUpdate             engine.Stmt
	del, ins                            engine.Stmt
}

// Events is what a worker of any engine family keeps and draws its events
// from: its random source, the test's options and statement counts, and
// the generation of ids and of c and pad values. The SQL worker and the
// implementation for MongoDB (workload/oltp/mongo) embed it, so that both
// draw the same events from the same seed. It is used by one goroutine.
type Events struct {
	v         *variant
	o         *options
	q         *workload.Queries
	rng       *rng
	n         GroupCounts
	tables    int
	tableSize uint32
	rangeAdd  int64 // range-size - 1
	trx       bool  // BEGIN … COMMIT around the event

	// client-generated ids for oltp_insert --auto-inc=false
	idIndex uint32
	idStart uint32
	workerN uint32

	buf [CLen + PadLen]byte
}

// worker runs one sysbench event per Next call on its own connection. It
// is used by one goroutine.
type worker struct {
	*Events
	c      engine.SQLConn
	tables []tableStmts
	// argv holds a statement's arguments for the call (see read): a
	// variadic slice handed to an interface method would be allocated
	// per statement.
	argv [4]any
}

// NewEvents is the event source of worker env.ID of w: its random source
// is seeded from env.Seed and its statements are counted in env.Queries
// (a counter of its own when that is nil).
func NewEvents(w *Test, env workload.WorkerEnv) (*Events, error) {
	o := &w.opts
	dc, err := o.distConfig()
	if err != nil {
		return nil, err
	}
	ev := &Events{
		v:         w.v,
		o:         o,
		q:         env.Queries,
		rng:       newRNG(env.Seed, dc),
		n:         w.v.counts(o),
		tables:    o.tables,
		tableSize: uint32(o.tableSize),
		rangeAdd:  int64(o.rangeSize) - 1,
		trx:       w.v.trx && !o.skipTrx,
		workerN:   uint32(env.ID),
		idStart:   uint32(splitmix64(env.Seed ^ 0x1d5a17)),
	}
	if ev.q == nil {
		ev.q = new(workload.Queries)
	}
	return ev, nil
}

// Queries is where the worker counts its statements.
func (ev *Events) Queries() *workload.Queries { return ev.q }

// Kind is the shape of the test's events.
func (ev *Events) Kind() EventKind { return ev.v.kind }

// Counts is how many statements of each group an event runs.
func (ev *Events) Counts() GroupCounts { return ev.n }

// Trx reports whether events run in a transaction.
func (ev *Events) Trx() bool { return ev.trx }

// AutoInc is --auto-inc: the database assigns inserted rows' ids.
func (ev *Events) AutoInc() bool { return ev.o.autoInc }

// RangeAdd is --range-size - 1: a range select covers [id, id+RangeAdd].
func (ev *Events) RangeAdd() int64 { return ev.rangeAdd }

// Op draws the op of the next event: 0, or for oltp_read_write_pct 1 (an
// index update) with the probability of --write-percent. It draws from
// the random source only for oltp_read_write_pct.
func (ev *Events) Op() int {
	if ev.v.kind == EventPct && ev.rng.uniform(1, 100) > uint32(ev.o.readPercent) {
		return 1
	}
	return 0
}

// Table picks a table uniformly, as sysbench's get_table_num: its index,
// 0-based (sbtest1 is 0).
func (ev *Events) Table() int {
	return int(ev.rng.uniform(1, uint32(ev.tables))) - 1
}

func newWorker(ctx context.Context, w *Test, c engine.SQLConn, env workload.WorkerEnv) (*worker, error) {
	ev, err := NewEvents(w, env)
	if err != nil {
		return nil, err
	}
	wk := &worker{Events: ev, c: c, tables: make([]tableStmts, ev.tables)}
	o := &w.opts
	// prep prepares one statement; after the first failure it does
	// nothing and err keeps that failure.
	prep := func(dst *engine.Stmt, format string, n int) {
		if err != nil {
			return
		}
		sql := fmt.Sprintf(format, n)
		if *dst, err = c.Prepare(ctx, sql); err != nil {
			err = fmt.Errorf("oltp: prepare %q: %w", sql, err)
		}
	}
	n := wk.n
	for i := range wk.tables {
		t, num := &wk.tables[i], i+1
		switch w.v.kind {
		case EventGroups:
			if n.Points > 0 {
				prep(&t.point, sqlPointSelect, num)
			}
			if n.Simple > 0 {
				prep(&t.simple, sqlSimpleRange, num)
			}
			if n.Sum > 0 {
				prep(&t.sum, sqlSumRange, num)
			}
			if n.Order > 0 {
				prep(&t.order, sqlOrderRange, num)
			}
			if n.Distinct > 0 {
				prep(&t.distinct, sqlDistinctRange, num)
			}
			if n.IdxUpdates > 0 {
				prep(&t.idxUpdate, sqlIndexUpdate, num)
			}
			if n.NonIdx > 0 {
				prep(&t.nonIdxUpdate, sqlNonIndexUpd, num)
			}
			if n.DelIns > 0 {
				prep(&t.del, sqlDelete, num)
				prep(&t.ins, sqlInsert, num)
			}
		case EventInsert:
			if o.autoInc {
				prep(&t.ins, sqlInsertAutoID, num)
			} else {
				prep(&t.ins, sqlInsert, num)
			}
		case EventDelete:
			prep(&t.del, sqlDelete, num)
		case EventPct:
			prep(&t.point, sqlPointSelect, num)
			prep(&t.idxUpdate, sqlIndexUpdate, num)
		}
	}
	if err != nil {
		return nil, err
	}
	return wk, nil
}

// rollbackTimeout bounds the ROLLBACK after a failed event.
const rollbackTimeout = 5 * time.Second

// Next runs one event. On error it rolls back the open transaction (a
// failed rollback is ignored: it only fails when the connection is gone,
// which the runner learns from the original error) and returns the error.
func (wk *worker) Next(ctx context.Context) (int, error) {
	op := wk.Op()
	if wk.trx {
		if err := wk.c.Begin(ctx); err != nil {
			return op, err
		}
		wk.q.Other++
	}
	if err := wk.event(ctx, op); err != nil {
		if wk.trx {
			wk.rollback(ctx)
		}
		return op, err
	}
	if wk.trx {
		if err := wk.c.Commit(ctx); err != nil {
			return op, err
		}
		wk.q.Other++
	}
	return op, nil
}

// rollback ends the failed transaction. When ctx has ended (end of run,
// Ctrl-C) it still tries, under a short timeout of its own, so that a
// connection that survived is left clean.
func (wk *worker) rollback(ctx context.Context) {
	var err error
	if ctx.Err() == nil {
		err = wk.c.Rollback(ctx)
	} else {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		err = wk.c.Rollback(rctx)
		cancel()
	}
	if err == nil {
		wk.q.Other++
	}
}

func (wk *worker) event(ctx context.Context, op int) error {
	switch wk.v.kind {
	case EventInsert:
		return wk.insert(ctx)
	case EventDelete:
		t := wk.table()
		return wk.write(ctx, t.del, int64(wk.ID()))
	case EventPct:
		t := wk.table()
		if op == 0 {
			return wk.read(ctx, t.point, int64(wk.ID()))
		}
		return wk.write(ctx, t.idxUpdate, int64(wk.ID()))
	}
	// sysbench's order: point selects, the four range groups, index
	// updates, non-index updates, delete/inserts; each group picks its
	// own random table.
	n := &wk.n
	if n.Points > 0 {
		t := wk.table()
		for i := 0; i < n.Points; i++ {
			if err := wk.read(ctx, t.point, int64(wk.ID())); err != nil {
				return err
			}
		}
	}
	if err := wk.ranges(ctx, n.Simple, func(t *tableStmts) engine.Stmt { return t.simple }); err != nil {
		return err
	}
	if err := wk.ranges(ctx, n.Sum, func(t *tableStmts) engine.Stmt { return t.sum }); err != nil {
		return err
	}
	if err := wk.ranges(ctx, n.Order, func(t *tableStmts) engine.Stmt { return t.order }); err != nil {
		return err
	}
	if err := wk.ranges(ctx, n.Distinct, func(t *tableStmts) engine.Stmt { return t.distinct }); err != nil {
		return err
	}
	if n.IdxUpdates > 0 {
		t := wk.table()
		for i := 0; i < n.IdxUpdates; i++ {
			if err := wk.write(ctx, t.idxUpdate, int64(wk.ID())); err != nil {
				return err
			}
		}
	}
	if n.NonIdx > 0 {
		t := wk.table()
		for i := 0; i < n.NonIdx; i++ {
			c := wk.CValue()
			if err := wk.write(ctx, t.nonIdxUpdate, c, int64(wk.ID())); err != nil {
				return err
			}
		}
	}
	if n.DelIns > 0 {
		t := wk.table()
		for i := 0; i < n.DelIns; i++ {
			id := int64(wk.ID())
			k := int64(wk.ID())
			if err := wk.write(ctx, t.del, id); err != nil {
				return err
			}
			c, pad := wk.CPadValues()
			if err := wk.write(ctx, t.ins, id, k, c, pad); err != nil {
				return err
			}
		}
	}
	return nil
}

// ranges runs count range selects of one kind on one random table, each
// on [id, id+range-size-1].
func (wk *worker) ranges(ctx context.Context, count int, pick func(*tableStmts) engine.Stmt) error {
	if count == 0 {
		return nil
	}
	s := pick(wk.table())
	for i := 0; i < count; i++ {
		id := int64(wk.ID())
		if err := wk.read(ctx, s, id, id+wk.rangeAdd); err != nil {
			return err
		}
	}
	return nil
}

// insert is oltp_insert's event.
func (wk *worker) insert(ctx context.Context) error {
	t := wk.table()
	k := int64(wk.ID())
	c, pad := wk.CPadValues()
	if wk.o.autoInc {
		return wk.write(ctx, t.ins, k, c, pad)
	}
	return wk.write(ctx, t.ins, int64(wk.UniqueID()), k, c, pad)
}

// UniqueID returns a client-generated id in [1, 2^31-1] that no other
// worker of the run produces: worker ID i (mod 1024) owns the ids
// permute31(i<<21 | j) for j in [0, 2^21), and walks j from a start drawn
// from its seed, so that a second run on the same tables is unlikely to
// meet the first run's ids. An id can repeat only after 2^21 inserts by
// one worker or with more than 1024 workers; the duplicate-key error then
// restarts the event with the next id. sysbench uses one shared counter
// scrambled by a permutation of the 32-bit integers
// (sysbench.rand.unique); per-worker slices keep workers sharing nothing.
func (wk *Events) UniqueID() uint32 {
	for {
		idx := (wk.workerN&0x3ff)<<21 | (wk.idStart+wk.idIndex)&(1<<21-1)
		wk.idIndex++
		if id := permute31(idx); id != 0 {
			return id
		}
	}
}

// permute31 is a bijection of [0, 2^31): xorshift and odd multiplications
// modulo 2^31, each invertible.
func permute31(x uint32) uint32 {
	const mask = 1<<31 - 1
	x &= mask
	x ^= x >> 16
	x = (x * 0x45d9f3b) & mask
	x ^= x >> 13
	x = (x * 0x2c1b3c6d) & mask
	x ^= x >> 16
	return x
}

// table picks a table uniformly (Events.Table).
func (wk *worker) table() *tableStmts {
	return &wk.tables[wk.Table()]
}

// ID draws an id from the --rand-type distribution over [1, table-size].
func (wk *Events) ID() uint32 { return wk.rng.def(1, wk.tableSize) }

// CValue returns a fresh 119-character c value.
func (wk *Events) CValue() string {
	wk.rng.fillDigits(wk.buf[:CLen], CGroups)
	return string(wk.buf[:CLen])
}

// CPadValues returns fresh c and pad values sharing one allocation.
func (wk *Events) CPadValues() (string, string) {
	wk.rng.fillDigits(wk.buf[:CLen], CGroups)
	wk.rng.fillDigits(wk.buf[CLen:], PadGroups)
	s := string(wk.buf[:])
	return s[:CLen], s[CLen:]
}

// read runs the query s with args (at most len(wk.argv)). args does not
// outlive the call, so the caller's variadic slice stays on its stack;
// the statement gets wk.argv.
func (wk *worker) read(ctx context.Context, s engine.Stmt, args ...any) error {
	n := copy(wk.argv[:], args)
	if _, err := s.Query(ctx, wk.argv[:n]...); err != nil {
		return err
	}
	wk.q.Reads++
	return nil
}

// write runs the statement s with args, as read does.
func (wk *worker) write(ctx context.Context, s engine.Stmt, args ...any) error {
	n := copy(wk.argv[:], args)
	if _, err := s.Exec(ctx, wk.argv[:n]...); err != nil {
		return err
	}
	wk.q.Writes++
	return nil
}
