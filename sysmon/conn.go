package sysmon

import (
	"context"

	"github.com/dbarena/dbarena/engine"
)

// Conn is the monitor's own connection to the target, as its engine's
// Connect returned it (an SQLConn, engine/mongo's session): the monitor
// hands it to the engine's ServerStats.Open and otherwise does not use
// it. The monitor samples from whichever goroutine calls Open, Start and
// Tick, so the Conn must be its own, never a worker's.
type Conn = engine.Conn

var _ engine.StatsSink = (*Sample)(nil)

// serverStatsOf returns the server statistics the engine of d registered,
// with the engine's name.
func serverStatsOf(d engine.Dialect) (*engine.ServerStats, string) {
	name := d.Name()
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
