package sysmon

import "context"

// This file is how Open finds an engine's server statistics: each engine's
// statistics file (postgres.go, mysql.go) registers its opener under the
// engine's name (engine.Registration.Name, which its Dialect reports), so
// that Open itself names no engine.

// A statsOpener is one engine's part of Open: it adds the engine's
// statistics source and notes to o.m and tells, through o, where the
// server runs.
type statsOpener func(ctx context.Context, o *opening)

// opening is what Open knows while an engine's statsOpener runs.
type opening struct {
	m   *Monitor
	q   querier // the monitor's own connection
	env procEnv
	// pid is the server's process on this host: given by the caller, or
	// 0 for the opener to find (it sets it when it does).
	pid int
	// local is true when the server is known to be on this host; the
	// opener sets it when it finds the pid.
	local bool
	// dataDir is the server's data directory: given by the caller, or ""
	// for the opener to set from what the server says when it is local.
	dataDir string
	// logDir is set by the opener to the write-ahead log's directory
	// below dataDir when the engine keeps it apart (PostgreSQL's pg_wal):
	// the disk metrics note when it is on another device.
	logDir string
}

// serverStats are the registered statsOpeners by engine name. They are
// added by init functions and only read afterwards.
var serverStats = map[string]statsOpener{}

// registerServerStats makes open the statistics of engine name. It panics
// on a name registered twice (a programming error).
func registerServerStats(name string, open statsOpener) {
	if _, dup := serverStats[name]; dup {
		panic("sysmon: server statistics registered twice: " + name)
	}
	serverStats[name] = open
}
