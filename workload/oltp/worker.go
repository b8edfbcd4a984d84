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

// worker runs one sysbench event per Next call on its own connection. It
// is used by one goroutine.
type worker struct {
	v         *variant
	o         *options
	c         engine.SQLConn
	q         *workload.Queries
	rng       *rng
	n         groupCounts
	tables    []tableStmts
	tableSize uint32
	rangeAdd  int64 // range-size - 1
	trx       bool  // BEGIN … COMMIT around the event

	// client-generated ids for oltp_insert --auto-inc=false
	idIndex uint32
	idStart uint32
	workerN uint32

	buf [cLen + padLen]byte
}

// newBaseWorker is a worker without a connection: its random source,
// counts and id generation, which every engine's worker shares.
func newBaseWorker(w *oltp, env workload.WorkerEnv) (*worker, error) {
	o := &w.opts
	dc, err := o.distConfig()
	if err != nil {
		return nil, err
	}
	wk := &worker{
		v:         w.v,
		o:         o,
		q:         env.Queries,
		rng:       newRNG(env.Seed, dc),
		n:         w.v.counts(o),
		tables:    make([]tableStmts, o.tables),
		tableSize: uint32(o.tableSize),
		rangeAdd:  int64(o.rangeSize) - 1,
		trx:       w.v.trx && !o.skipTrx,
		workerN:   uint32(env.ID),
		idStart:   uint32(splitmix64(env.Seed ^ 0x1d5a17)),
	}
	if wk.q == nil {
		wk.q = new(workload.Queries)
	}
	return wk, nil
}

func newWorker(ctx context.Context, w *oltp, c engine.SQLConn, env workload.WorkerEnv) (*worker, error) {
	wk, err := newBaseWorker(w, env)
	if err != nil {
		return nil, err
	}
	wk.c = c
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
		case eventGroups:
			if n.points > 0 {
				prep(&t.point, sqlPointSelect, num)
			}
			if n.simple > 0 {
				prep(&t.simple, sqlSimpleRange, num)
			}
			if n.sum > 0 {
				prep(&t.sum, sqlSumRange, num)
			}
			if n.order > 0 {
				prep(&t.order, sqlOrderRange, num)
			}
			if n.distinct > 0 {
				prep(&t.distinct, sqlDistinctRange, num)
			}
			if n.idxUpdates > 0 {
				prep(&t.idxUpdate, sqlIndexUpdate, num)
			}
			if n.nonIdx > 0 {
				prep(&t.nonIdxUpdate, sqlNonIndexUpd, num)
			}
			if n.delIns > 0 {
				prep(&t.del, sqlDelete, num)
				prep(&t.ins, sqlInsert, num)
			}
		case eventInsert:
			if o.autoInc {
				prep(&t.ins, sqlInsertAutoID, num)
			} else {
				prep(&t.ins, sqlInsert, num)
			}
		case eventDelete:
			prep(&t.del, sqlDelete, num)
		case eventPct:
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
	op := 0
	if wk.v.kind == eventPct && wk.rng.uniform(1, 100) > uint32(wk.o.readPercent) {
		op = 1
	}
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
	case eventInsert:
		return wk.insert(ctx)
	case eventDelete:
		t := wk.table()
		return wk.write(ctx, t.del, int64(wk.id()))
	case eventPct:
		t := wk.table()
		if op == 0 {
			return wk.read(ctx, t.point, int64(wk.id()))
		}
		return wk.write(ctx, t.idxUpdate, int64(wk.id()))
	}
	// sysbench's order: point selects, the four range groups, index
	// updates, non-index updates, delete/inserts; each group picks its
	// own random table.
	n := &wk.n
	if n.points > 0 {
		t := wk.table()
		for i := 0; i < n.points; i++ {
			if err := wk.read(ctx, t.point, int64(wk.id())); err != nil {
				return err
			}
		}
	}
	if err := wk.ranges(ctx, n.simple, func(t *tableStmts) engine.Stmt { return t.simple }); err != nil {
		return err
	}
	if err := wk.ranges(ctx, n.sum, func(t *tableStmts) engine.Stmt { return t.sum }); err != nil {
		return err
	}
	if err := wk.ranges(ctx, n.order, func(t *tableStmts) engine.Stmt { return t.order }); err != nil {
		return err
	}
	if err := wk.ranges(ctx, n.distinct, func(t *tableStmts) engine.Stmt { return t.distinct }); err != nil {
		return err
	}
	if n.idxUpdates > 0 {
		t := wk.table()
		for i := 0; i < n.idxUpdates; i++ {
			if err := wk.write(ctx, t.idxUpdate, int64(wk.id())); err != nil {
				return err
			}
		}
	}
	if n.nonIdx > 0 {
		t := wk.table()
		for i := 0; i < n.nonIdx; i++ {
			c := wk.cValue()
			if err := wk.write(ctx, t.nonIdxUpdate, c, int64(wk.id())); err != nil {
				return err
			}
		}
	}
	if n.delIns > 0 {
		t := wk.table()
		for i := 0; i < n.delIns; i++ {
			id := int64(wk.id())
			k := int64(wk.id())
			if err := wk.write(ctx, t.del, id); err != nil {
				return err
			}
			c, pad := wk.cPadValues()
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
		id := int64(wk.id())
		if err := wk.read(ctx, s, id, id+wk.rangeAdd); err != nil {
			return err
		}
	}
	return nil
}

// insert is oltp_insert's event.
func (wk *worker) insert(ctx context.Context) error {
	t := wk.table()
	k := int64(wk.rng.def(1, wk.tableSize))
	c, pad := wk.cPadValues()
	if wk.o.autoInc {
		return wk.write(ctx, t.ins, k, c, pad)
	}
	return wk.write(ctx, t.ins, int64(wk.uniqueID()), k, c, pad)
}

// uniqueID returns a client-generated id in [1, 2^31-1] that no other
// worker of the run produces: worker ID i (mod 1024) owns the ids
// permute31(i<<21 | j) for j in [0, 2^21), and walks j from a start drawn
// from its seed, so that a second run on the same tables is unlikely to
// meet the first run's ids. An id can repeat only after 2^21 inserts by
// one worker or with more than 1024 workers; the duplicate-key error then
// restarts the event with the next id. sysbench uses one shared counter
// scrambled by a permutation of the 32-bit integers
// (sysbench.rand.unique); per-worker slices keep workers sharing nothing.
func (wk *worker) uniqueID() uint32 {
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

// table picks a table uniformly, as sysbench's get_table_num.
func (wk *worker) table() *tableStmts {
	return &wk.tables[wk.rng.uniform(1, uint32(len(wk.tables)))-1]
}

// id draws an id from the --rand-type distribution over [1, table-size].
func (wk *worker) id() uint32 { return wk.rng.def(1, wk.tableSize) }

// cValue returns a fresh 119-character c value.
func (wk *worker) cValue() string {
	wk.rng.fillDigits(wk.buf[:cLen], cGroups)
	return string(wk.buf[:cLen])
}

// cPadValues returns fresh c and pad values sharing one allocation.
func (wk *worker) cPadValues() (string, string) {
	wk.rng.fillDigits(wk.buf[:cLen], cGroups)
	wk.rng.fillDigits(wk.buf[cLen:], padGroups)
	s := string(wk.buf[:])
	return s[:cLen], s[cLen:]
}

func (wk *worker) read(ctx context.Context, s engine.Stmt, args ...any) error {
	if _, err := s.Query(ctx, args...); err != nil {
		return err
	}
	wk.q.Reads++
	return nil
}

func (wk *worker) write(ctx context.Context, s engine.Stmt, args ...any) error {
	if _, err := s.Exec(ctx, args...); err != nil {
		return err
	}
	wk.q.Writes++
	return nil
}
