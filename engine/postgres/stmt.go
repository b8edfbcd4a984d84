package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dbarena/dbarena/engine"
)

// fastStmt is a named server-side statement: arguments are encoded into
// buffers the statement keeps between calls, each call is one round trip
// on the connection's protocol frontend (roundTrip), and Query counts rows
// without decoding them. In a batch it goes through pgconn. It serves
// QueryExecModeCacheStatement.
type fastStmt struct {
	c             *Conn
	m             *pgtype.Map
	sd            *pgconn.StatementDescription
	params        [][]byte // what is sent: bufs[i] or nil for NULL
	bufs          [][]byte // per-parameter encoding buffers, reused
	paramFormats  []int16
	resultFormats []int16
	plans         scanPlans
	// bindMsg is the statement's Bind, its arguments set at each call;
	// fds its result's columns in the formats it asks for, desc those of
	// a portal described at run time (when fds is empty).
	bindMsg pgproto3.Bind
	fds     []pgconn.FieldDescription
	desc    []pgconn.FieldDescription
}

var _ engine.Stmt = (*fastStmt)(nil)

func newFastStmt(c *Conn, sd *pgconn.StatementDescription) *fastStmt {
	m := c.conn.TypeMap()
	s := &fastStmt{
		c:             c,
		m:             m,
		sd:            sd,
		params:        make([][]byte, len(sd.ParamOIDs)),
		bufs:          make([][]byte, len(sd.ParamOIDs)),
		paramFormats:  make([]int16, len(sd.ParamOIDs)),
		resultFormats: make([]int16, len(sd.Fields)),
	}
	for i, oid := range sd.ParamOIDs {
		// Never nil: pgtype.Map.Encode returns nil for NULL only, so an
		// empty non-nil buffer keeps "" apart from NULL.
		s.bufs[i] = make([]byte, 0, 32)
		switch oid {
		case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
			s.paramFormats[i] = pgtype.BinaryFormatCode
		default:
			s.paramFormats[i] = m.FormatCodeForOID(oid)
		}
	}
	s.fds = make([]pgconn.FieldDescription, len(sd.Fields))
	for i, f := range sd.Fields {
		s.resultFormats[i] = m.FormatCodeForOID(f.DataTypeOID)
		s.fds[i] = f
		s.fds[i].Format = s.resultFormats[i]
	}
	s.bindMsg = pgproto3.Bind{PreparedStatement: sd.Name, ParameterFormatCodes: s.paramFormats, ResultFormatCodes: s.resultFormats}
	return s
}

// bind encodes args into s.params.
func (s *fastStmt) bind(args []any) error {
	if len(args) != len(s.params) {
		return fmt.Errorf("postgres: statement takes %d arguments, got %d", len(s.params), len(args))
	}
	for i, a := range args {
		oid := s.sd.ParamOIDs[i]
		buf := s.bufs[i][:0]
		switch v := a.(type) {
		case nil:
			s.params[i] = nil
			continue
		case int:
			if b, ok, err := appendInt(buf, oid, int64(v)); ok || err != nil {
				if err != nil {
					return fmt.Errorf("postgres: argument %d: %w", i+1, err)
				}
				s.params[i], s.bufs[i] = b, b
				continue
			}
		case int64:
			if b, ok, err := appendInt(buf, oid, v); ok || err != nil {
				if err != nil {
					return fmt.Errorf("postgres: argument %d: %w", i+1, err)
				}
				s.params[i], s.bufs[i] = b, b
				continue
			}
		case string:
			switch oid {
			case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID, pgtype.UnknownOID:
				// Text and binary formats of text types are the bytes.
				buf = append(buf, v...)
				s.params[i], s.bufs[i] = buf, buf
				continue
			}
		}
		b, err := s.m.Encode(oid, s.paramFormats[i], a, buf)
		if err != nil {
			return fmt.Errorf("postgres: argument %d: %w", i+1, err)
		}
		s.params[i] = b
		if b != nil {
			s.bufs[i] = b
		}
	}
	return nil
}

// appendInt encodes v in binary for an integer parameter type; ok is false
// for other types (left to the type map).
func appendInt(buf []byte, oid uint32, v int64) (b []byte, ok bool, err error) {
	switch oid {
	case pgtype.Int8OID:
		return binary.BigEndian.AppendUint64(buf, uint64(v)), true, nil
	case pgtype.Int4OID:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, true, fmt.Errorf("%d is out of range for integer", v)
		}
		return binary.BigEndian.AppendUint32(buf, uint32(int32(v))), true, nil
	case pgtype.Int2OID:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return nil, true, fmt.Errorf("%d is out of range for smallint", v)
		}
		return binary.BigEndian.AppendUint16(buf, uint16(int16(v))), true, nil
	}
	return buf, false, nil
}

// Exec runs the statement and returns the rows affected.
func (s *fastStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	_, affected, err := s.roundTrip(ctx, args, nil)
	return affected, err
}

// Query runs the statement and counts its rows without decoding them.
func (s *fastStmt) Query(ctx context.Context, args ...any) (int64, error) {
	n, _, err := s.roundTrip(ctx, args, nil)
	return n, err
}

// QueryRow runs the statement and decodes its first row into dest through
// the connection's type map.
func (s *fastStmt) QueryRow(ctx context.Context, args []any, dest ...any) error {
	n, _, err := s.roundTrip(ctx, args, func(vals [][]byte, fds []pgconn.FieldDescription) error {
		if err := s.scanVals(vals, fds, dest); err != nil {
			return err
		}
		return errFirstRow
	})
	switch {
	case errors.Is(err, errFirstRow):
		return nil
	case err == nil && n == 0:
		return engine.ErrNoRows
	}
	return err
}

// errFirstRow ends QueryRow's reading of rows after the first.
var errFirstRow = errors.New("postgres: first row read")

// QueryEach runs the statement and decodes every row into dest, calling
// fn after each.
func (s *fastStmt) QueryEach(ctx context.Context, args []any, dest []any, fn func() error) (int64, error) {
	n, _, err := s.roundTrip(ctx, args, func(vals [][]byte, fds []pgconn.FieldDescription) error {
		if err := s.scanVals(vals, fds, dest); err != nil {
			return err
		}
		return fn()
	})
	return n, err
}

// Messages the statement's round trip sends besides its Bind; the
// encoders only read them.
var (
	describePortal = pgproto3.Describe{ObjectType: 'P'}
	executeAll     = pgproto3.Execute{}
	syncMsg        = pgproto3.Sync{}
)

// roundTrip runs the statement with args in one write and reads its reply
// straight off the connection's protocol frontend: its Bind, Execute and
// Sync go out together, and the reply is read message by message up to
// ReadyForQuery. It is pgconn.ExecStatement without what a single
// statement on a connection used by one goroutine does not need: the
// connection lock, the per-call context watch (Conn.watch covers it), the
// timer that guards a long write against a server that answers before
// reading it all (the server reads a Bind whole before it answers) and
// the result reader's bookkeeping.
//
// row, when not nil, is called with each row's values and field
// descriptions, valid until it returns, until it returns an error; rows
// counts the rows it was called with (every row when row is nil), and
// affected is the rows the command tag reports. A server error comes
// first, then row's; the reply is read to its end either way, so the
// connection stays in step. A read or write that fails gives the
// connection up (abandon).
func (s *fastStmt) roundTrip(ctx context.Context, args []any, row func(vals [][]byte, fds []pgconn.FieldDescription) error) (rows, affected int64, err error) {
	if err := s.bind(args); err != nil {
		return 0, 0, err
	}
	c := s.c
	f, err := c.frontend(ctx)
	if err != nil {
		return 0, 0, err
	}
	s.bindMsg.Parameters = s.params
	f.SendBind(&s.bindMsg)
	if len(s.fds) == 0 {
		// No columns known from the description: the portal's own says
		// what the rows hold, if any (pgconn does the same).
		f.SendDescribe(&describePortal)
	}
	f.SendExecute(&executeAll)
	f.SendSync(&syncMsg)
	if err := c.flush(ctx, f); err != nil {
		return 0, 0, err
	}
	return c.receive(ctx, s, row)
}

// frontend returns the connection's protocol frontend for a request made
// under ctx, which it watches.
func (c *Conn) frontend(ctx context.Context) (*pgproto3.Frontend, error) {
	if c.watch(ctx); ctx.Err() != nil {
		return nil, engine.CtxErr(ctx, ctx.Err())
	}
	if c.pg.IsClosed() || c.pg.IsBusy() {
		return nil, fmt.Errorf("postgres: %w", pgconn.ErrConnClosed)
	}
	return c.pg.Frontend(), nil
}

// flush writes what f holds, giving the connection up if that fails.
func (c *Conn) flush(ctx context.Context, f *pgproto3.Frontend) error {
	if err := f.Flush(); err != nil {
		c.abandon()
		return engine.CtxErr(ctx, err)
	}
	return nil
}

// receive reads a reply off the connection's protocol frontend up to
// ReadyForQuery: that of s's round trip, or of a simple query when s is
// nil (whose rows are counted only). See roundTrip for row, rows,
// affected and the errors; c.rolledBack is set when the last command tag
// is ROLLBACK.
func (c *Conn) receive(ctx context.Context, s *fastStmt, row func(vals [][]byte, fds []pgconn.FieldDescription) error) (rows, affected int64, err error) {
	f := c.pg.Frontend()
	var fds []pgconn.FieldDescription
	if s != nil {
		fds = s.fds
	}
	var srvErr, rowErr error
	c.rolledBack = false
	for {
		msg, err := f.Receive()
		if err != nil {
			c.abandon()
			return rows, affected, engine.CtxErr(ctx, err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			switch {
			case row == nil:
				rows++
			case rowErr == nil && srvErr == nil:
				rows++
				rowErr = row(m.Values, fds)
			}
		case *pgproto3.CommandComplete:
			affected = pgconn.NewCommandTag(unsafeString(m.CommandTag)).RowsAffected()
			c.rolledBack = string(m.CommandTag) == "ROLLBACK"
		case *pgproto3.RowDescription:
			if s != nil {
				fds = s.described(m)
			}
		case *pgproto3.ErrorResponse:
			pgErr := pgconn.ErrorResponseToPgError(m)
			if strings.EqualFold(pgErr.Severity, "FATAL") {
				// The server ends the session after it (pgconn's default
				// OnPgError closes the connection too).
				_ = c.pg.Close(context.Background())
				return rows, affected, pgErr
			}
			if srvErr == nil {
				srvErr = pgErr
			}
		case *pgproto3.ReadyForQuery:
			if srvErr != nil {
				return rows, affected, engine.CtxErr(ctx, srvErr)
			}
			return rows, affected, rowErr
		}
		// BindComplete, NoData, EmptyQueryResponse and what the server
		// may send at any time (notices, parameter changes,
		// notifications) need nothing.
	}
}

// simple runs sql, one statement without rows (a transaction's control),
// as a simple query read by receive.
func (c *Conn) simple(ctx context.Context, sql string) error {
	f, err := c.frontend(ctx)
	if err != nil {
		return err
	}
	f.SendQuery(&pgproto3.Query{String: sql})
	if err := c.flush(ctx, f); err != nil {
		return err
	}
	_, _, err = c.receive(ctx, nil, nil)
	return err
}

// described returns the field descriptions of a RowDescription, in a
// slice the statement reuses.
func (s *fastStmt) described(m *pgproto3.RowDescription) []pgconn.FieldDescription {
	s.desc = s.desc[:0]
	for _, f := range m.Fields {
		s.desc = append(s.desc, pgconn.FieldDescription{
			Name: string(f.Name), TableOID: f.TableOID, TableAttributeNumber: f.TableAttributeNumber,
			DataTypeOID: f.DataTypeOID, DataTypeSize: f.DataTypeSize, TypeModifier: f.TypeModifier, Format: f.Format,
		})
	}
	return s.desc
}

// unsafeString views b as a string for as long as b is not changed.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// abandon gives up the connection after a read or write failed in the
// middle of a statement, as pgconn does: the connection is closed at once
// (its next use fails as a lost connection), and the server is asked in
// the background to cancel what it may still be running for it.
func (c *Conn) abandon() {
	pg := c.pg
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = pg.CancelRequest(ctx)
	}()
	_ = pg.Conn().Close()
	_ = pg.Close(context.Background()) // marks it closed; the socket already is
}

// scanRow decodes rr's current row into dest.
func (s *fastStmt) scanRow(rr *pgconn.ResultReader, dest []any) error {
	return s.scanVals(rr.Values(), rr.FieldDescriptions(), dest)
}

// scanVals decodes a row's values into dest.
func (s *fastStmt) scanVals(vals [][]byte, fds []pgconn.FieldDescription, dest []any) error {
	if len(dest) != len(vals) {
		return fmt.Errorf("postgres: row has %d columns, %d destinations", len(vals), len(dest))
	}
	if len(fds) != len(vals) {
		return fmt.Errorf("postgres: row has %d columns, its description %d", len(vals), len(fds))
	}
	for i, d := range dest {
		if err := s.plans.scan(s.m, i, &fds[i], vals[i], d); err != nil {
			return fmt.Errorf("postgres: column %s: %w", fds[i].Name, err)
		}
	}
	return nil
}

// firstRow decodes rr's first row, if there is one, into dest. The caller
// closes rr.
func (s *fastStmt) firstRow(rr *pgconn.ResultReader, dest []any) (found bool, err error) {
	if !rr.NextRow() {
		return false, nil
	}
	return true, s.scanRow(rr, dest)
}

// eachRow decodes rr's rows into dest and calls fn after each, until a
// row fails to decode or fn fails. The caller closes rr.
func (s *fastStmt) eachRow(rr *pgconn.ResultReader, dest []any, fn func() error) (int64, error) {
	var n int64
	for rr.NextRow() {
		n++
		if err := s.scanRow(rr, dest); err != nil {
			return n, err
		}
		if err := fn(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// modeStmt runs a statement through pgx.Conn in the exec mode the target
// selected (exec, describe_exec, cache_describe, simple_protocol).
type modeStmt struct {
	c   *Conn
	sql string
}

var _ engine.Stmt = (*modeStmt)(nil)

// Exec runs the statement and returns the rows affected.
func (s *modeStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	tag, err := s.c.conn.Exec(s.c.watch(ctx), s.sql, args...)
	if err != nil {
		return 0, engine.CtxErr(ctx, err)
	}
	return tag.RowsAffected(), nil
}

// Query runs the statement and counts its rows.
func (s *modeStmt) Query(ctx context.Context, args ...any) (int64, error) {
	rows, err := s.c.conn.Query(s.c.watch(ctx), s.sql, args...)
	if err != nil {
		return 0, engine.CtxErr(ctx, err)
	}
	var n int64
	for rows.Next() {
		n++
	}
	rows.Close()
	return n, engine.CtxErr(ctx, rows.Err())
}

// QueryRow runs the statement and scans its first row into dest.
func (s *modeStmt) QueryRow(ctx context.Context, args []any, dest ...any) error {
	err := s.c.conn.QueryRow(s.c.watch(ctx), s.sql, args...).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return engine.ErrNoRows
	}
	return engine.CtxErr(ctx, err)
}

// QueryEach runs the statement and scans every row into dest, calling fn
// after each.
func (s *modeStmt) QueryEach(ctx context.Context, args []any, dest []any, fn func() error) (int64, error) {
	rows, err := s.c.conn.Query(s.c.watch(ctx), s.sql, args...)
	if err != nil {
		return 0, engine.CtxErr(ctx, err)
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		n++
		if err := rows.Scan(dest...); err != nil {
			return n, engine.CtxErr(ctx, err)
		}
		if err := fn(); err != nil {
			return n, err
		}
	}
	return n, engine.CtxErr(ctx, rows.Err())
}

var _ engine.Batcher = (*Conn)(nil)

// beginAt is the BEGIN of each isolation level (engine.Batch.BeginAt),
// "" the session's.
var beginAt = map[string]string{"": "BEGIN"}

func init() {
	for _, l := range []string{engine.ReadCommitted, engine.RepeatableRead, engine.Serializable} {
		beginAt[l], _ = engine.IsolationSQL("BEGIN ISOLATION LEVEL", l)
	}
}

// beginSQL is the statement that begins a transaction at level.
func beginSQL(level string) (string, error) {
	if q, ok := beginAt[level]; ok {
		return q, nil
	}
	_, err := engine.IsolationSQL("BEGIN ISOLATION LEVEL", level) // the error naming level
	return "", err
}

// SendBatch sends b's statements in one round trip: their Bind and Execute
// messages (BEGIN and COMMIT as unnamed statements) then a single Sync,
// which pgconn.ExecBatch writes at once; a batch with synchronization
// points (Batch.Sync) goes through pgconn's pipeline instead, with a Sync
// at each point (sendSynced). Batches with a statement that is not one of
// this connection's named statements (the exec modes other than
// cache_statement) run one statement at a time.
func (c *Conn) SendBatch(ctx context.Context, b *engine.Batch) error {
	n := b.Len()
	if n == 0 {
		return nil
	}
	synced := false
	for i := 0; i < n; i++ {
		it := b.Item(i)
		if it.Stmt != nil {
			if fs, ok := it.Stmt.(*fastStmt); !ok || fs.c != c {
				return engine.RunBatch(ctx, c, b)
			}
		}
		synced = synced || it.Op == engine.BatchSync
	}
	if synced {
		return c.sendSynced(ctx, b)
	}
	var pb pgconn.Batch
	for i := 0; i < n; i++ {
		it := b.Item(i)
		switch it.Op {
		case engine.BatchBegin:
			q, err := beginSQL(it.Level)
			if err != nil {
				return &engine.BatchError{Index: i, Err: err}
			}
			pb.ExecParams(q, nil, nil, nil, nil)
		case engine.BatchCommit:
			pb.ExecParams("COMMIT", nil, nil, nil, nil)
		default:
			fs := it.Stmt.(*fastStmt)
			// Bind copies the encoded arguments into the batch, so a
			// statement queued twice reuses its buffers safely.
			if err := fs.bind(it.Args); err != nil {
				return &engine.BatchError{Index: i, Err: err}
			}
			pb.ExecStatement(fs.sd, fs.params, fs.paramFormats, fs.resultFormats)
		}
	}

	var first error
	mrr := c.pg.ExecBatch(c.watch(ctx), &pb)
	got := 0 // results received
	for ; got < n && mrr.NextResult(); got++ {
		if err := batchResult(ctx, b, got, mrr.ResultReader()); err != nil && first == nil {
			first = err
		}
	}
	if err := mrr.Close(); err != nil && first == nil {
		// A server error ends the results at the statement that failed.
		first = &engine.BatchError{Index: min(got, n-1), Err: engine.CtxErr(ctx, err)}
	}
	return first
}

// sendSynced sends a batch with synchronization points in one round trip
// through pgconn's pipeline: each statement's Bind, Describe and Execute,
// a Sync at each point and one at the end, flushed in one write. A server
// error skips the rest of its segment only; the next segment runs. The
// statements go by name (SendQueryPrepared, whose result carries its row
// description) rather than with their descriptions: pgconn's pipeline
// keeps a queue of descriptions that a skipped statement would leave out
// of step with the results after the next Sync.
func (c *Conn) sendSynced(ctx context.Context, b *engine.Batch) error {
	n := b.Len()
	// The pipeline encodes each Bind as it is queued, and what is queued
	// cannot be taken back: find an argument that does not encode before
	// anything is.
	for i := 0; i < n; i++ {
		it := b.Item(i)
		var err error
		switch {
		case it.Stmt != nil:
			err = it.Stmt.(*fastStmt).bind(it.Args)
		case it.Op == engine.BatchBegin:
			_, err = beginSQL(it.Level)
		}
		if err != nil {
			return &engine.BatchError{Index: i, Err: err}
		}
	}
	p := c.pg.StartPipeline(c.watch(ctx))
	for i := 0; i < n; i++ {
		it := b.Item(i)
		switch it.Op {
		case engine.BatchBegin:
			q, _ := beginSQL(it.Level) // checked above
			p.SendQueryParams(q, nil, nil, nil, nil)
		case engine.BatchCommit:
			p.SendQueryParams("COMMIT", nil, nil, nil, nil)
		case engine.BatchSync:
			p.SendPipelineSync()
		default:
			fs := it.Stmt.(*fastStmt)
			if err := fs.bind(it.Args); err != nil {
				// It encoded a moment ago. Close gives up the unsynced
				// requests with the connection.
				_ = p.Close()
				return &engine.BatchError{Index: i, Err: err}
			}
			p.SendQueryPrepared(fs.sd.Name, fs.params, fs.paramFormats, fs.resultFormats)
		}
	}
	var first error
	fail := func(i int, err error) {
		if first == nil {
			first = &engine.BatchError{Index: i, Err: engine.CtxErr(ctx, err)}
		}
	}
	if err := p.Sync(); err != nil {
		_ = p.Close()
		return &engine.BatchError{Index: 0, Err: engine.CtxErr(ctx, err)}
	}
	skip := false // the server skips the rest of a segment after an error
	for i := 0; i < n; i++ {
		it := b.Item(i)
		if it.Op == engine.BatchSync {
			if _, err := p.GetResults(); err != nil {
				fail(i, err)
				break
			}
			skip = false
			continue
		}
		if skip {
			continue
		}
		res, err := p.GetResults()
		if err != nil {
			fail(i, err)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) {
				break // the connection failed: nothing more to read
			}
			skip = true
			continue
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			fail(i, fmt.Errorf("pipeline: got %T for statement %d", res, i))
			break
		}
		if err := batchResult(ctx, b, i, rr); err != nil {
			if first == nil {
				first = err
			}
			var pgErr *pgconn.PgError
			skip = errors.As(err, &pgErr)
		}
	}
	// Close reads whatever is left up to the last Sync.
	if err := p.Close(); err != nil && first == nil {
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			first = &engine.BatchError{Index: n - 1, Err: engine.CtxErr(ctx, err)}
		}
	}
	return first
}

// batchResult reads the result of b's statement i from rr, fills its
// destinations and row count, and returns its error as a
// *engine.BatchError.
func batchResult(ctx context.Context, b *engine.Batch, i int, rr *pgconn.ResultReader) error {
	it := b.Item(i)
	var rows int64
	var clientErr error
	switch it.Op {
	case engine.BatchQueryRow:
		found, err := it.Stmt.(*fastStmt).firstRow(rr, it.Dest)
		if clientErr = err; !found {
			clientErr = engine.ErrNoRows
		} else {
			rows = 1
		}
	case engine.BatchQueryEach:
		rows, clientErr = it.Stmt.(*fastStmt).eachRow(rr, it.Dest, it.Fn)
	case engine.BatchQuery:
		for rr.NextRow() {
			rows++
		}
	}
	tag, err := rr.Close()
	if it.Op == engine.BatchExec {
		rows = tag.RowsAffected()
	}
	b.SetRowsAffected(i, rows)
	switch {
	case err != nil:
		return &engine.BatchError{Index: i, Err: engine.CtxErr(ctx, err)}
	case clientErr != nil:
		return &engine.BatchError{Index: i, Err: clientErr}
	case it.Op == engine.BatchCommit && tag.String() == "ROLLBACK":
		return &engine.BatchError{Index: i, Err: ErrCommitRolledBack}
	}
	return nil
}
