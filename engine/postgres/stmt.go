package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dbarena/dbarena/engine"
)

// fastStmt is a named server-side statement run through pgconn: arguments
// are encoded into buffers the statement keeps between calls, and Query
// counts rows without decoding them. It serves QueryExecModeCacheStatement.
type fastStmt struct {
	c             *Conn
	m             *pgtype.Map
	sd            *pgconn.StatementDescription
	params        [][]byte // what is sent: bufs[i] or nil for NULL
	bufs          [][]byte // per-parameter encoding buffers, reused
	paramFormats  []int16
	resultFormats []int16
	plans         scanPlans
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
	for i, f := range sd.Fields {
		s.resultFormats[i] = m.FormatCodeForOID(f.DataTypeOID)
	}
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

func (s *fastStmt) exec(ctx context.Context, args []any) (*pgconn.ResultReader, error) {
	if err := s.bind(args); err != nil {
		return nil, err
	}
	return s.c.pg.ExecStatement(s.c.watch(ctx), s.sd, s.params, s.paramFormats, s.resultFormats), nil
}

// Exec runs the statement and returns the rows affected.
func (s *fastStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	rr, err := s.exec(ctx, args)
	if err != nil {
		return 0, err
	}
	tag, err := rr.Close()
	if err != nil {
		return 0, engine.CtxErr(ctx, err)
	}
	return tag.RowsAffected(), nil
}

// Query runs the statement and counts its rows without decoding them.
func (s *fastStmt) Query(ctx context.Context, args ...any) (int64, error) {
	rr, err := s.exec(ctx, args)
	if err != nil {
		return 0, err
	}
	var n int64
	for rr.NextRow() {
		n++
	}
	if _, err := rr.Close(); err != nil {
		return n, engine.CtxErr(ctx, err)
	}
	return n, nil
}

// QueryRow runs the statement and decodes its first row into dest through
// the connection's type map.
func (s *fastStmt) QueryRow(ctx context.Context, args []any, dest ...any) error {
	rr, err := s.exec(ctx, args)
	if err != nil {
		return err
	}
	found, scanErr := s.firstRow(rr, dest)
	if _, err := rr.Close(); err != nil {
		return engine.CtxErr(ctx, err)
	}
	if !found {
		return engine.ErrNoRows
	}
	return scanErr
}

// QueryEach runs the statement and decodes every row into dest, calling
// fn after each.
func (s *fastStmt) QueryEach(ctx context.Context, args []any, dest []any, fn func() error) (int64, error) {
	rr, err := s.exec(ctx, args)
	if err != nil {
		return 0, err
	}
	n, rowErr := s.eachRow(rr, dest, fn)
	// Close drains what is left of the result when fn stopped early.
	if _, err := rr.Close(); err != nil {
		return n, engine.CtxErr(ctx, err)
	}
	return n, rowErr
}

// scanRow decodes rr's current row into dest.
func (s *fastStmt) scanRow(rr *pgconn.ResultReader, dest []any) error {
	vals, fds := rr.Values(), rr.FieldDescriptions()
	if len(dest) != len(vals) {
		return fmt.Errorf("postgres: row has %d columns, %d destinations", len(vals), len(dest))
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
