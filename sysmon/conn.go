package sysmon

import (
	"context"

	"github.com/dbarena/dbarena/engine"
)

// Conn is what the monitor needs of a database connection; every
// engine.SQLConn has it. The monitor runs its statements on the Conn from
// whichever goroutine calls Open, Start and Tick, so the Conn must be its
// own, never a worker's.
type Conn interface {
	// QueryRows runs sql and calls fn once per row, as engine.Conn does.
	QueryRows(ctx context.Context, sql string, args []any, fn func(row []any) error) error
	// Dialect names the engine: its registered name finds the engine's
	// engine.ServerStats.
	Dialect() engine.SQLDialect
}

var (
	_ Conn             = engine.SQLConn(nil)
	_ engine.StatsSink = (*Sample)(nil)
)

// serverStatsOf returns the server statistics the engine of c registered,
// with the engine's name.
func serverStatsOf(c Conn) (*engine.ServerStats, string) {
	name := c.Dialect().Name()
	r, ok := engine.Lookup(name)
	if !ok || r.ServerStats == nil {
		return nil, name
	}
	return r.ServerStats, name
}

// engineSource is an engine's statistics source as a Source.
type engineSource struct {
	src engine.StatsSource
}

func (e engineSource) Name() string { return e.src.Name() }

func (e engineSource) Sample(ctx context.Context, s *Sample) error { return e.src.Sample(ctx, s) }
