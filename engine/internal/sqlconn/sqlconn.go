// Package sqlconn is the part of an engine.SQLConn that every engine built
// on a database/sql driver (mysql, sqlite) shares: statements, queries,
// transactions, ping and close on one *sql.Conn. An engine's Conn embeds a
// Conn and adds what differs (BulkLoad, Dialect, Catalog).
package sqlconn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sqlstmt"
)

// Normalizer maps a value database/sql scanned from a column whose driver
// type name is dbType (sql.ColumnType.DatabaseTypeName: "BIGINT",
// "UNSIGNED INT", "TEXT" …) onto the types engine.SQLConn.QueryRows
// promises: int64, float64, string, []byte, bool, time.Time or nil.
type Normalizer func(dbType string, v any) any

// Conn is one database/sql connection used as an engine.SQLConn. It is not
// safe for concurrent use.
type Conn struct {
	sc        *sql.Conn
	begin     string
	normalize Normalizer
	stmts     []*sql.Stmt
	types     []string
	dest      []any
	ptrs      []any
	row       []any
	// QueryText's values as text, and their buffers.
	text [][]byte
	bufs [][]byte
}

// New wraps sc. begin is the statement Begin sends ("BEGIN", "BEGIN
// IMMEDIATE"); normalize maps QueryRows' values.
func New(sc *sql.Conn, begin string, normalize Normalizer) Conn {
	return Conn{sc: sc, begin: begin, normalize: normalize}
}

// SQLConn returns the underlying database/sql connection.
func (c *Conn) SQLConn() *sql.Conn { return c.sc }

// Exec runs sql without arguments.
func (c *Conn) Exec(ctx context.Context, sql string) error {
	_, err := c.sc.ExecContext(ctx, sql)
	return engine.CtxErr(ctx, err)
}

// Begin sends the engine's BEGIN statement (given to New).
func (c *Conn) Begin(ctx context.Context) error { return c.Exec(ctx, c.begin) }

// Commit sends COMMIT.
func (c *Conn) Commit(ctx context.Context) error { return c.Exec(ctx, "COMMIT") }

// Rollback sends ROLLBACK.
func (c *Conn) Rollback(ctx context.Context) error { return c.Exec(ctx, "ROLLBACK") }

// Prepare prepares sql on this connection (a server-side statement on
// MySQL, a compiled one on SQLite). The statement is closed with the Conn.
func (c *Conn) Prepare(ctx context.Context, sql string) (engine.Stmt, error) {
	st, err := c.sc.PrepareContext(ctx, sql)
	if err != nil {
		return nil, engine.CtxErr(ctx, err)
	}
	c.stmts = append(c.stmts, st)
	return &sqlstmt.Stmt{St: st}, nil
}

// QueryRow runs sql with args and scans its first row into dest; it
// returns engine.ErrNoRows when there is none.
func (c *Conn) QueryRow(ctx context.Context, sql string, args []any, dest ...any) error {
	return sqlstmt.ScanErr(ctx, c.sc.QueryRowContext(ctx, sql, args...).Scan(dest...))
}

// QueryRows runs sql with args and calls fn with each row's values, mapped
// by the engine's Normalizer. The slice passed to fn is reused between
// calls; an error from fn stops the reading and is returned.
func (c *Conn) QueryRows(ctx context.Context, sql string, args []any, fn func(row []any) error) error {
	rows, err := c.sc.QueryContext(ctx, sql, args...)
	if err != nil {
		return engine.CtxErr(ctx, err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	c.types, c.dest, c.ptrs = c.types[:0], c.dest[:0], c.ptrs[:0]
	for _, ct := range types {
		c.types = append(c.types, ct.DatabaseTypeName())
		c.dest = append(c.dest, nil)
	}
	for i := range c.dest {
		c.ptrs = append(c.ptrs, &c.dest[i])
	}
	for rows.Next() {
		if err := rows.Scan(c.ptrs...); err != nil {
			return err
		}
		c.row = c.row[:0]
		for i, v := range c.dest {
			c.row = append(c.row, c.normalize(c.types[i], v))
		}
		if err := fn(c.row); err != nil {
			return err
		}
	}
	rows.Close()
	return engine.CtxErr(ctx, rows.Err())
}

// QueryText runs sql with args and calls fn with each row's values as
// text, nil for NULL, and the columns' names; it reads every result set
// the driver returns, numbering them from 0. The slices passed to fn are
// reused between calls; an error from fn stops the reading and is
// returned.
func (c *Conn) QueryText(ctx context.Context, query string, args []any, fn func(result int, cols []string, row [][]byte) error) error {
	rows, err := c.sc.QueryContext(ctx, query, args...)
	if err != nil {
		return engine.CtxErr(ctx, err)
	}
	defer rows.Close()
	for n := 0; ; n++ {
		cols, err := rows.Columns()
		if err != nil {
			return engine.CtxErr(ctx, err)
		}
		c.dest, c.ptrs = c.dest[:0], c.ptrs[:0]
		for range cols {
			c.dest = append(c.dest, nil)
		}
		for i := range c.dest {
			c.ptrs = append(c.ptrs, &c.dest[i])
		}
		for len(c.text) < len(cols) {
			c.text = append(c.text, nil)
			c.bufs = append(c.bufs, nil)
		}
		vals := c.text[:len(cols)]
		for rows.Next() {
			if err := rows.Scan(c.ptrs...); err != nil {
				return engine.CtxErr(ctx, err)
			}
			for i, v := range c.dest {
				vals[i] = nil
				if v != nil {
					c.bufs[i] = appendText(c.bufs[i][:0], v)
					vals[i] = c.bufs[i]
				}
			}
			if err := fn(n, cols, vals); err != nil {
				return err
			}
		}
		if !rows.NextResultSet() {
			break
		}
	}
	rows.Close()
	return engine.CtxErr(ctx, rows.Err())
}

// MultiResults is false: database/sql drivers run several statements
// their own way (SQLite's returns the last one's rows only), so callers
// send them one by one.
func (c *Conn) MultiResults() bool { return false }

// appendText appends the text of a value database/sql scanned into an
// any (a driver.Value) to b; never nil.
func appendText(b []byte, v any) []byte {
	if b == nil {
		b = make([]byte, 0, 16)
	}
	switch x := v.(type) {
	case []byte:
		return append(b, x...)
	case string:
		return append(b, x...)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	case bool:
		return strconv.AppendBool(b, x)
	case time.Time:
		return x.AppendFormat(b, "2006-01-02 15:04:05.999999999")
	}
	return fmt.Append(b, v)
}

// Ping runs SELECT 1.
func (c *Conn) Ping(ctx context.Context) error {
	var one int64
	return c.QueryRow(ctx, "SELECT 1", nil, &one)
}

// Close closes the statements and the connection itself (it does not go
// back to the pool, where a half-used session could be handed out again).
func (c *Conn) Close() error {
	for _, st := range c.stmts {
		st.Close()
	}
	c.stmts = nil
	_ = c.sc.Raw(func(any) error { return driver.ErrBadConn })
	err := c.sc.Close()
	if errors.Is(err, sql.ErrConnDone) {
		err = nil
	}
	return err
}
