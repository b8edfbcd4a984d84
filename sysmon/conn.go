package sysmon

import (
	"context"
	"strconv"

	"github.com/dbarena/dbarena/engine"
)

// This file is sysmon's whole dependence on package engine.

// Conn is what the monitor needs of a database connection; every
// engine.SQLConn has it. The monitor runs its statements on the Conn from
// whichever goroutine calls Open, Start and Tick, so the Conn must be its
// own, never a worker's.
type Conn interface {
	// QueryRows runs sql and calls fn once per row, as engine.Conn does.
	QueryRows(ctx context.Context, sql string, args []any, fn func(row []any) error) error
	// Dialect names the engine family: "postgres", "mysql", "sqlite".
	Dialect() engine.SQLDialect
}

var _ Conn = engine.SQLConn(nil)

// querier is the part of Conn the SQL sources use, so that tests can fake
// it.
type querier interface {
	QueryRows(ctx context.Context, sql string, args []any, fn func(row []any) error) error
}

// engineName is the engine family of c.
func engineName(c Conn) string {
	return c.Dialect().Name()
}

// asInt64 converts a value engine.Conn.QueryRows hands out (int64, float64,
// string, []byte) to an integer.
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), true
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	case []byte:
		n, err := strconv.ParseInt(string(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// asFloat64 converts a QueryRows value to a float.
func asFloat64(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	case []byte:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	return 0, false
}

// asString converts a QueryRows value to a string ("" for NULL).
func asString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}
