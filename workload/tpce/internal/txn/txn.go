// Package txn runs the TPC-E-like workload's transactions, frame by frame,
// in client mode: every statement is a prepared statement on one
// engine.SQLConn, written once for every SQL engine with '?' placeholders
// and parameters of their columns' types (a symbol is a string compared
// with a VARCHAR column, never a CHAR parameter, which would make
// PostgreSQL cast the column and scan the table).
//
// A Client belongs to one connection and one goroutine. Each transaction
// is one method taking its input struct (exactly the inputs the
// specification's frames take) and returning its output; the client does
// the arithmetic between frames. Statements are prepared on first use and
// kept for the life of the connection; those whose text depends on the
// input (IN lists, LIMIT n) are prepared once per shape.
//
// New trade ids come from a sequence where the server has them: Install
// creates the sequence tpce_trade_id (PostgreSQL and MariaDB, CREATE
// SEQUENCE) starting above the largest t_id, and New uses it when it can
// prepare nextval on it. Otherwise (SQLite, MySQL) the id is MAX(t_id)+1,
// read inside the Trade-Order transaction: on SQLite the transaction
// holds the database's write lock from BEGIN IMMEDIATE on, so two orders
// never read the same maximum; on MySQL two concurrent orders can, and
// the second fails with a duplicate key that the runner's retry policy
// does not retry (a known limit of that fallback).
package txn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// Trade status and type ids of the fixed tables.
const (
	StatusCompleted = "CMPT"
	StatusSubmitted = "SBMT"
	StatusPending   = "PNDG"
	StatusCanceled  = "CNCL"

	TypeMarketBuy  = "TMB"
	TypeMarketSell = "TMS"
	TypeLimitBuy   = "TLB"
	TypeLimitSell  = "TLS"
	TypeStopLoss   = "TSL"
)

// Sequence is the name of the trade id sequence Install creates.
const Sequence = "tpce_trade_id"

// ErrNoPermission is returned by TradeOrder when the executor is not the
// account's owner and account_permission does not list them (frame 2):
// the transaction is rolled back. The customer emulator never asks for
// such an order, so it is an error, not an intended rollback.
var ErrNoPermission = errors.New("tpce: the executor has no permission on the account")

// ErrNotFound is returned (wrapped, naming the key) when a row a frame
// needs is missing.
var ErrNotFound = errors.New("tpce: row not found")

// Client runs the transactions on one connection.
type Client struct {
	c     engine.SQLConn
	fu    string
	stmts map[string]engine.Stmt
	// nextID is the statement that returns a new trade id.
	nextID string
	// Queries counts the statements sent: reads, writes and the others
	// (BEGIN, COMMIT, ROLLBACK).
	Queries workload.Queries
	// Pipeline sends a transaction's statements that do not depend on
	// each other's results in one batch, in one round trip where the
	// engine can pipeline (engine.Batch), BEGIN with the first ones and
	// COMMIT with the last (see inTx and the queue* methods); without it
	// they are sent one after the other.
	Pipeline bool
	b        engine.Batch
	// pending names the rows that must exist among the queued statements
	// (queueRow), by their index in b.
	pending []pendingRow
	// beginPending is set while inTx's BEGIN waits in b, unsent.
	beginPending bool
	// indexScans is the statement that makes the rest of a transaction
	// look rows up by index (engine.Capabilities.PreferIndexScans), "" when the
	// engine does not lock predicates; setting is its prepared form,
	// counted with BEGIN and COMMIT.
	indexScans string
	setting    engine.Stmt
	// pipelines tells whether the engine sends a batch in one round trip.
	pipelines bool
	// level is the isolation level each BEGIN carries when the client
	// pipelines (SetIsolation); "" for the session's.
	level string
	// Now is the clock of the timestamps the transactions write (UTC,
	// truncated to microseconds); time.Now by default.
	Now func() time.Time
}

// IDSource says where the client's new trade ids come from: "sequence"
// or "max+1".
func (c *Client) IDSource() string {
	if c.nextID == maxPlusOne {
		return "max+1"
	}
	return "sequence"
}

// nextvals are the ways the engines read a sequence's next value, tried
// in order when the client is made.
var nextvals = []string{
	"SELECT nextval('" + Sequence + "')", // PostgreSQL
	"SELECT NEXTVAL(" + Sequence + ")",   // MariaDB
}

const maxPlusOne = "SELECT COALESCE(MAX(t_id), 0) + 1 FROM trade"

// New returns a client of c. It finds how the server numbers trades (see
// the package documentation).
func New(ctx context.Context, c engine.SQLConn) (*Client, error) {
	cl := &Client{c: c, fu: c.Dialect().Capabilities().LockingRead, indexScans: c.Dialect().Capabilities().PreferIndexScans, pipelines: c.Dialect().Capabilities().Pipelines,
		stmts: map[string]engine.Stmt{}, nextID: maxPlusOne, Now: time.Now}
	for _, q := range nextvals {
		if st, err := c.Prepare(ctx, q); err == nil {
			cl.stmts[q] = st
			cl.nextID = q
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return cl, nil
}

// Install creates the trade id sequence, starting after the largest t_id,
// on servers that have sequences (PostgreSQL, MariaDB); on the others it
// does nothing, and clients number trades by MAX(t_id)+1.
func Install(ctx context.Context, c engine.SQLConn) error {
	var maxID int64
	if err := c.QueryRow(ctx, "SELECT COALESCE(MAX(t_id), 0) FROM trade", nil, &maxID); err != nil {
		return fmt.Errorf("tpce: reading the largest trade id: %w", err)
	}
	if c.Exec(ctx, fmt.Sprintf("CREATE SEQUENCE %s START WITH %d", Sequence, maxID+1)) != nil {
		// Already there (a run before), or a server without sequences:
		// an existing sequence must start after the trades.
		for _, q := range nextvals {
			var next int64
			if c.QueryRow(ctx, q, nil, &next) == nil {
				if next <= maxID {
					return fmt.Errorf("tpce: sequence %s is at %d, below the largest trade id %d", Sequence, next, maxID)
				}
				return nil
			}
		}
	}
	return nil
}

// Uninstall drops the sequence Install created, if any.
func Uninstall(ctx context.Context, c engine.SQLConn) error {
	for _, q := range nextvals {
		if st, err := c.Prepare(ctx, q); err == nil && st != nil {
			return c.Exec(ctx, "DROP SEQUENCE "+Sequence)
		}
	}
	return nil
}

func (c *Client) now() time.Time { return c.Now().UTC().Truncate(time.Microsecond) }

func (c *Client) stmt(ctx context.Context, q string) (engine.Stmt, error) {
	if st, ok := c.stmts[q]; ok {
		return st, nil
	}
	st, err := c.c.Prepare(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("tpce: preparing %q: %w", q, err)
	}
	c.stmts[q] = st
	return st, nil
}

// row runs a query and scans its first row; ErrNoRows when none.
func (c *Client) row(ctx context.Context, q string, args []any, dest ...any) error {
	st, err := c.stmt(ctx, q)
	if err != nil {
		return err
	}
	if c.routed() {
		c.b.QueryRow(st, args, dest...)
		err := c.sendQueue(ctx)
		c.resetQueue()
		return err
	}
	c.Queries.Reads++
	return st.QueryRow(ctx, args, dest...)
}

// must is row for a row that must exist.
func (c *Client) must(ctx context.Context, what string, q string, args []any, dest ...any) error {
	err := c.row(ctx, q, args, dest...)
	if errors.Is(err, engine.ErrNoRows) {
		return fmt.Errorf("%w: %s %v", ErrNotFound, what, args)
	}
	return err
}

// each runs a query and calls fn after scanning each row into dest.
func (c *Client) each(ctx context.Context, q string, args []any, dest []any, fn func() error) (int64, error) {
	st, err := c.stmt(ctx, q)
	if err != nil {
		return 0, err
	}
	if c.routed() {
		i := c.b.QueryEach(st, args, dest, fn)
		err := c.sendQueue(ctx)
		n := c.b.RowsAffected(i)
		c.resetQueue()
		return n, err
	}
	c.Queries.Reads++
	return st.QueryEach(ctx, args, dest, fn)
}

// exec runs a write and returns the rows it changed.
func (c *Client) exec(ctx context.Context, q string, args ...any) (int64, error) {
	st, err := c.stmt(ctx, q)
	if err != nil {
		return 0, err
	}
	if c.routed() {
		i := c.b.Exec(st, args...)
		err := c.sendQueue(ctx)
		n := c.b.RowsAffected(i)
		c.resetQueue()
		return n, err
	}
	c.Queries.Writes++
	return st.Exec(ctx, args...)
}

// routed tells whether a statement run now must join the queue: with
// Pipeline, when a transaction's BEGIN or other statements wait in it,
// they go first, in the same round trip.
func (c *Client) routed() bool { return c.Pipeline && c.b.Len() > 0 }

// send sends c.b (see Pipeline), a transaction of its own, and counts
// its statements; a batch that fails is rolled back when it began a
// transaction.
func (c *Client) send(ctx context.Context) error {
	began := c.b.Len() > 0 && c.b.Item(0).Op == engine.BatchBegin
	err := c.transmit(ctx)
	c.resetQueue()
	if err != nil && began {
		return c.rollback(ctx, err)
	}
	return err
}

// transmit sends c.b, in one round trip with Pipeline, and counts its
// statements. A BEGIN waiting in it (inTx) has then reached the server.
func (c *Client) transmit(ctx context.Context) error {
	for i := 0; i < c.b.Len(); i++ {
		switch it := c.b.Item(i); it.Op {
		case engine.BatchBegin, engine.BatchCommit:
			c.Queries.Other++
		case engine.BatchExec:
			if it.Stmt != nil && it.Stmt == c.setting {
				c.Queries.Other++
			} else {
				c.Queries.Writes++
			}
		case engine.BatchSync:
		default:
			c.Queries.Reads++
		}
	}
	c.beginPending = false
	if c.Pipeline {
		return c.b.Send(ctx, c.c)
	}
	return engine.RunBatch(ctx, c.c, &c.b)
}

// pendingRow is a queued row that must exist: what it is, for the error.
type pendingRow struct {
	index int
	what  string
	args  []any
}

// The queue* methods run a transaction's statements in as few round trips
// as their dependencies allow when Pipeline is set: they add to c.b, and
// flush sends what was queued. Without Pipeline each runs at once and
// flush does nothing. Either way a value a queued statement scans may be
// used only after the next flush, so one text serves both.

// resetQueue empties the queue.
func (c *Client) resetQueue() {
	c.b.Reset()
	c.pending = c.pending[:0]
}

// flush sends what was queued. A queueRow's missing row is ErrNotFound
// naming it, as must's.
func (c *Client) flush(ctx context.Context) error {
	if !c.Pipeline || c.b.Len() == 0 {
		return nil
	}
	err := c.sendQueue(ctx)
	c.resetQueue()
	return err
}

// sendQueue is flush without emptying the queue (the caller reads a
// statement's count first).
func (c *Client) sendQueue(ctx context.Context) error {
	err := c.transmit(ctx)
	var be *engine.BatchError
	if err != nil && errors.Is(err, engine.ErrNoRows) && errors.As(err, &be) {
		for _, p := range c.pending {
			if p.index == be.Index {
				return fmt.Errorf("%w: %s %v", ErrNotFound, p.what, p.args)
			}
		}
	}
	return err
}

// queueRow queues a query whose row must exist (as must).
func (c *Client) queueRow(ctx context.Context, what, q string, args []any, dest ...any) error {
	if !c.Pipeline {
		return c.must(ctx, what, q, args, dest...)
	}
	st, err := c.stmt(ctx, q)
	if err != nil {
		return err
	}
	c.pending = append(c.pending, pendingRow{index: c.b.QueryRow(st, args, dest...), what: what, args: args})
	return nil
}

// queueOptional queues a query of at most one row; without one, dest
// keeps its values.
func (c *Client) queueOptional(ctx context.Context, q string, args []any, dest ...any) error {
	if !c.Pipeline {
		err := c.row(ctx, q, args, dest...)
		if errors.Is(err, engine.ErrNoRows) {
			return nil
		}
		return err
	}
	st, err := c.stmt(ctx, q)
	if err != nil {
		return err
	}
	c.b.QueryEach(st, args, dest, nothing)
	return nil
}

// queueEach queues a query calling fn after scanning each row into dest.
func (c *Client) queueEach(ctx context.Context, q string, args []any, dest []any, fn func() error) error {
	if !c.Pipeline {
		_, err := c.each(ctx, q, args, dest, fn)
		return err
	}
	st, err := c.stmt(ctx, q)
	if err != nil {
		return err
	}
	c.b.QueryEach(st, args, dest, fn)
	return nil
}

// queueExec queues a write.
func (c *Client) queueExec(ctx context.Context, q string, args ...any) error {
	if !c.Pipeline {
		_, err := c.exec(ctx, q, args...)
		return err
	}
	st, err := c.stmt(ctx, q)
	if err != nil {
		return err
	}
	c.b.Exec(st, args...)
	return nil
}

func (c *Client) begin(ctx context.Context) error {
	c.Queries.Other++
	return c.c.Begin(ctx)
}

func (c *Client) commit(ctx context.Context) error {
	c.Queries.Other++
	return c.c.Commit(ctx)
}

// rollback ends a failed transaction and returns err (joined with the
// rollback's own error, if any).
func (c *Client) rollback(ctx context.Context, err error) error {
	c.Queries.Other++
	if rerr := c.c.Rollback(context.WithoutCancel(ctx)); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// inTx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise.
//
// With Pipeline, BEGIN waits in the queue and goes with the
// transaction's first statements, and COMMIT with its last queued ones:
// two round trips fewer.
func (c *Client) inTx(ctx context.Context, fn func() error) error {
	if !c.Pipeline {
		if err := c.begin(ctx); err != nil {
			return err
		}
		if err := fn(); err != nil {
			return c.rollback(ctx, err)
		}
		return c.commit(ctx)
	}
	c.resetQueue()
	c.b.BeginAt(c.level)
	c.beginPending = true
	err := fn()
	if err == nil {
		c.b.Commit()
		if err = c.flush(ctx); err == nil {
			return nil
		}
	}
	sent := !c.beginPending
	c.beginPending = false
	c.resetQueue()
	if !sent {
		return err // nothing reached the server
	}
	return c.rollback(ctx, err)
}

// SetIsolation makes the transactions from the next one on run at level.
// With Pipeline, on an engine that pipelines (Capabilities.Pipelines), every
// BEGIN carries the level (engine.Batch.BeginAt) and nothing is sent now;
// otherwise the session's level is set at once, a statement of its own.
func (c *Client) SetIsolation(ctx context.Context, level string) error {
	if c.Pipeline && c.pipelines {
		c.level = level
		return nil
	}
	c.level = ""
	c.Queries.Other++
	return engine.SetIsolation(ctx, c.c, level)
}

// marks returns n comma-separated placeholders.
func marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// round2 rounds an amount to cents.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

func nullStr(s sql.NullString) string { return s.String }

// queueIndexScans queues, on an engine whose serializable isolation locks
// what a statement scans (engine.Capabilities.PreferIndexScans), the statement that
// makes the rest of the transaction look rows up by index; elsewhere it
// does nothing.
func (c *Client) queueIndexScans(ctx context.Context) error {
	if c.indexScans == "" {
		return nil
	}
	st, err := c.stmt(ctx, c.indexScans)
	if err != nil {
		return err
	}
	c.setting = st
	if !c.Pipeline {
		c.Queries.Other++
		_, err := st.Exec(ctx)
		return err
	}
	c.b.Exec(st)
	return nil
}
