package engine

import (
	"context"
	"fmt"
)

// Batch is a list of statements sent to the server together: one round
// trip where the engine can pipeline (PostgreSQL's extended protocol lets a
// client send many Bind/Execute messages before one Sync), one statement
// after the other elsewhere. A transaction spends most of a load
// generator's CPU in socket calls, one write and one read per round trip,
// so a workload that knows which statements do not depend on each other's
// results queues them in one Batch.
//
// Results are delivered when Send returns: QueryRow and QueryEach
// destinations are filled, fn is called per row, RowsAffected reports an
// Exec's count. A Batch is reused after Reset; it is not safe for
// concurrent use.
//
// Send returns the error of the first statement that failed as a
// *BatchError. Whether the statements after it ran is unspecified (a
// server skips them after an error of its own, not after a client-side
// one such as no row for QueryRow), so a caller whose batch was part of a
// transaction rolls it back.
type Batch struct {
	items []batchItem
	args  []any // every item's arguments, back to back
	dests []any
}

// BatchOp is what one item of a Batch does.
type BatchOp uint8

const (
	BatchBegin     BatchOp = iota + 1 // BEGIN
	BatchCommit                       // COMMIT
	BatchExec                         // Stmt.Exec
	BatchQuery                        // Stmt.Query
	BatchQueryRow                     // Stmt.QueryRow
	BatchQueryEach                    // Stmt.QueryEach
	BatchSync                         // a synchronization point (Batch.Sync)
)

type batchItem struct {
	op           BatchOp
	level        string
	stmt         Stmt
	args, dests  [2]int // [start, end) in Batch.args and Batch.dests
	fn           func() error
	rowsAffected int64
}

// BatchItem is one queued statement as an engine executes it.
type BatchItem struct {
	Op BatchOp
	// Level is a BatchBegin's isolation level (BeginAt); "" for the
	// session's.
	Level string
	Stmt  Stmt  // nil for BatchBegin and BatchCommit
	Args  []any // the statement's arguments
	Dest  []any // QueryRow and QueryEach destinations
	Fn    func() error
}

// BatchError is the error of the statement at Index (0-based, in the order
// queued) that made Send fail.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string { return e.Err.Error() }
func (e *BatchError) Unwrap() error { return e.Err }

// Batcher is implemented by Conns that send a Batch in one round trip.
// SendBatch runs every item of b in order and reports rows affected through
// b.SetRowsAffected; it may fall back to RunBatch for statements it cannot
// pipeline.
type Batcher interface {
	SendBatch(ctx context.Context, b *Batch) error
}

// Reset empties b, keeping its buffers.
func (b *Batch) Reset() {
	clear(b.args)
	clear(b.dests)
	for i := range b.items {
		b.items[i] = batchItem{}
	}
	b.items, b.args, b.dests = b.items[:0], b.args[:0], b.dests[:0]
}

// Len is the number of queued statements.
func (b *Batch) Len() int { return len(b.items) }

func (b *Batch) add(op BatchOp, s Stmt, args, dests []any, fn func() error) int {
	it := batchItem{op: op, stmt: s, fn: fn}
	it.args[0] = len(b.args)
	b.args = append(b.args, args...)
	it.args[1] = len(b.args)
	it.dests[0] = len(b.dests)
	b.dests = append(b.dests, dests...)
	it.dests[1] = len(b.dests)
	b.items = append(b.items, it)
	return len(b.items) - 1
}

// Begin queues BEGIN and returns its index.
func (b *Batch) Begin() int { return b.add(BatchBegin, nil, nil, nil, nil) }

// BeginAt queues BEGIN of a transaction at isolation level (one of
// ReadCommitted, RepeatableRead, Serializable) and returns its index. An
// engine that starts a transaction at a level in one statement
// (PostgreSQL's BEGIN ISOLATION LEVEL) sends that; elsewhere RunBatch
// sets the session's level first (SetIsolation), which stays the
// session's after the transaction.
func (b *Batch) BeginAt(level string) int {
	i := b.add(BatchBegin, nil, nil, nil, nil)
	b.items[i].level = level
	return i
}

// Commit queues COMMIT and returns its index. A COMMIT that the server
// turned into a rollback (the transaction had failed) is an error.
func (b *Batch) Commit() int { return b.add(BatchCommit, nil, nil, nil, nil) }

// Sync queues a synchronization point. On an engine that pipelines, the
// whole batch still goes in one round trip, but the statements since the
// previous point (without BEGIN, one implicit transaction) end there: a
// server error skips the rest of them only, and the server resumes at the
// next statement, as PostgreSQL's Sync message and pgbench's
// \syncpipeline do. Elsewhere it does nothing.
func (b *Batch) Sync() int { return b.add(BatchSync, nil, nil, nil, nil) }

// Exec queues s.Exec(args...) and returns its index.
func (b *Batch) Exec(s Stmt, args ...any) int { return b.add(BatchExec, s, args, nil, nil) }

// Query queues s.Query(args...), which reads the rows without decoding
// them, and returns its index; RowsAffected is then the number of rows.
func (b *Batch) Query(s Stmt, args ...any) int { return b.add(BatchQuery, s, args, nil, nil) }

// QueryRow queues s.QueryRow(args, dest...) and returns its index. No row
// is an error (ErrNoRows).
func (b *Batch) QueryRow(s Stmt, args []any, dest ...any) int {
	return b.add(BatchQueryRow, s, args, dest, nil)
}

// QueryEach queues s.QueryEach(args, dest, fn) and returns its index.
func (b *Batch) QueryEach(s Stmt, args []any, dest []any, fn func() error) int {
	return b.add(BatchQueryEach, s, args, dest, fn)
}

// Item returns the statement at index i.
func (b *Batch) Item(i int) BatchItem {
	it := &b.items[i]
	return BatchItem{Op: it.op, Level: it.level, Stmt: it.stmt, Fn: it.fn,
		Args: b.args[it.args[0]:it.args[1]:it.args[1]], Dest: b.dests[it.dests[0]:it.dests[1]:it.dests[1]]}
}

// RowsAffected is what the Exec at index i reported, or the rows a
// Query, QueryRow or QueryEach read, once Send has returned.
func (b *Batch) RowsAffected(i int) int64 { return b.items[i].rowsAffected }

// SetRowsAffected records the count of the statement at index i; engines
// call it from SendBatch.
func (b *Batch) SetRowsAffected(i int, n int64) { b.items[i].rowsAffected = n }

// Send runs b on c: in one round trip when c is a Batcher, else through
// RunBatch.
func (b *Batch) Send(ctx context.Context, c SQLConn) error {
	if bc, ok := c.(Batcher); ok {
		return bc.SendBatch(ctx, b)
	}
	return RunBatch(ctx, c, b)
}

// RunBatch runs b's statements on c one after the other and stops at the
// first that fails.
func RunBatch(ctx context.Context, c SQLConn, b *Batch) error {
	for i := range b.items {
		it := b.Item(i)
		var err error
		var n int64
		switch it.Op {
		case BatchBegin:
			if it.Level != "" {
				err = SetIsolation(ctx, c, it.Level)
			}
			if err == nil {
				err = c.Begin(ctx)
			}
		case BatchCommit:
			err = c.Commit(ctx)
		case BatchExec:
			n, err = it.Stmt.Exec(ctx, it.Args...)
		case BatchQuery:
			n, err = it.Stmt.Query(ctx, it.Args...)
		case BatchQueryRow:
			if err = it.Stmt.QueryRow(ctx, it.Args, it.Dest...); err == nil {
				n = 1
			}
		case BatchQueryEach:
			n, err = it.Stmt.QueryEach(ctx, it.Args, it.Dest, it.Fn)
		case BatchSync:
		default:
			err = fmt.Errorf("engine: batch item %d: unknown operation %d", i, it.Op)
		}
		b.SetRowsAffected(i, n)
		if err != nil {
			return &BatchError{Index: i, Err: err}
		}
	}
	return nil
}
