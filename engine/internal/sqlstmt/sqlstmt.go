// Package sqlstmt adapts database/sql prepared statements to engine.Stmt,
// for the engines built on database/sql drivers (mysql, sqlite).
package sqlstmt

import (
	"context"
	"database/sql"
	"errors"

	"github.com/dbarena/dbarena/engine"
)

// Stmt is an engine.Stmt over a *sql.Stmt bound to one connection.
type Stmt struct {
	St *sql.Stmt
}

var _ engine.Stmt = (*Stmt)(nil)

// Exec runs the statement and returns the rows affected.
func (s *Stmt) Exec(ctx context.Context, args ...any) (int64, error) {
	res, err := s.St.ExecContext(ctx, args...)
	if err != nil {
		return 0, engine.CtxErr(ctx, err)
	}
	return res.RowsAffected()
}

// Query runs the statement and counts its rows without scanning them.
func (s *Stmt) Query(ctx context.Context, args ...any) (int64, error) {
	rows, err := s.St.QueryContext(ctx, args...)
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
func (s *Stmt) QueryRow(ctx context.Context, args []any, dest ...any) error {
	return ScanErr(ctx, s.St.QueryRowContext(ctx, args...).Scan(dest...))
}

// QueryEach runs the statement and scans every row into dest, calling fn
// after each.
func (s *Stmt) QueryEach(ctx context.Context, args []any, dest []any, fn func() error) (int64, error) {
	rows, err := s.St.QueryContext(ctx, args...)
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

// ScanErr turns sql.ErrNoRows into engine.ErrNoRows and marks errors
// caused by the end of ctx (engine.CtxErr).
func ScanErr(ctx context.Context, err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return engine.ErrNoRows
	}
	return engine.CtxErr(ctx, err)
}
