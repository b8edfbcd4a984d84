package engine

import "slices"

// Kind names one engine implementation. It is the key under which a
// workload's parts for one engine (its stored procedures, a dialect's
// queries) register, so that no workload compares an engine's name.
type Kind string

// The engines dbarena has. MySQL is MariaDB too: one dialect serves both.
const (
	KindPostgres Kind = "postgres"
	KindMySQL    Kind = "mysql"
	KindSQLite   Kind = "sqlite"
	KindMongo    Kind = "mongodb"
)

// Capabilities is what an engine can do, stated once by the engine
// (Dialect.Capabilities). Workloads, the runner and session ask it
// before any work instead of probing connections by type assertion;
// the zero value is an engine that can do none of the optional things.
// An engine's Capabilities share their slices: read them, never change
// them.
type Capabilities struct {
	// Kind is which engine this is.
	Kind Kind
	// Family is the language it speaks (SQL or documents).
	Family Family
	// Transactions: several statements commit or roll back together.
	Transactions bool
	// Isolation lists the isolation levels a session can be set to
	// (SetIsolation), empty when none can be chosen. An engine whose
	// transactions always run at one level lists that level only.
	Isolation []string
	// Procedures: code can be installed on the server and called
	// (stored procedures and functions).
	Procedures bool
	// Pipelines: connections send a batch of statements in one round
	// trip (Batcher). Elsewhere Send runs a batch one statement at a time.
	Pipelines bool
	// TextResults: connections return a query's rows as text with the
	// columns' names (TextQuerier); MultiResults: several statements in
	// one such call, each result numbered.
	TextResults, MultiResults bool
	// LockingRead is the clause that makes a SELECT lock the rows it
	// reads (" FOR UPDATE"), "" where plain reads inside a write
	// transaction are already safe (SQLite).
	LockingRead string
	// PreferIndexScans is the statement that makes the rest of a
	// transaction look rows up by index, on engines whose serializable
	// isolation locks what a statement scans (PostgreSQL's SSI); "" elsewhere.
	PreferIndexScans string
	// Upsert is the engine's insert-or-update statement, 0 when it has none.
	Upsert UpsertStyle
	// LateForeignKeys: foreign keys can be added to loaded tables.
	LateForeignKeys bool
	// Embedded: the engine runs inside dbarena's process, so its workers
	// do the database's work on the client's CPUs.
	Embedded bool
	// Driven: connections can be waited on by a drive.Thread (Connect's
	// context names one), so workers may run as its coroutines.
	Driven bool
	// Rejoins: the driver replaces lost connections by itself, and
	// connections tell when it did (Rejoiner).
	Rejoins bool
}

// Isolates reports whether level is one c can set.
func (c Capabilities) Isolates(level string) bool { return slices.Contains(c.Isolation, level) }
