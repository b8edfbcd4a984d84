// Package engine defines how dbarena talks to one family of databases.
//
// An Engine is opened from a Target (a URL) and hands out Conns, one per
// worker. What every engine offers the runner is small and language-free:
// connections, a Dialect that classifies errors, a Catalog for setting up
// tables (or collections) and loading their initial data, and a
// round-trip probe. The runner never asks which engine it drives.
//
// SQL engines' connections are SQLConns as well: they prepare Stmts for
// the hot path and offer the few non-hot helpers (DDL, single-row queries)
// that workloads need; everything that differs between SQL dialects
// (placeholders, column types) lives behind SQLDialect, so that workloads
// never compare engine names. Optional abilities are interfaces a Conn
// may implement: Batcher (statements sent together), TextQuerier (rows
// as text with their columns' names). A document engine (engine/mongo) hands out
// connections of its own type, which workloads written for documents use
// through the driver.
//
// Implementations live in subpackages (engine/postgres, engine/mysql,
// engine/sqlite, engine/mongo) and register themselves: each package's init
// calls Register with one Registration that holds every fact dbarena knows
// about the engine (URL schemes and aliases, family, password variable,
// opener). Shared code asks the registry (Lookup, Registrations, Schemes,
// PasswordEnvs) instead of listing engines; engine/all imports them all.
//
// Target and Secret are package target's (engine.Target is target.Target),
// which also owns the one redaction policy; ParseTarget and ScrubEnv add
// what needs the registry (scheme aliases, password variables).
package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/schema"
)

// Engine is an open target: a factory of connections plus server metadata.
// It is safe for concurrent use.
type Engine interface {
	// Name is the engine family: "postgres", "mysql", "sqlite" or "mongodb".
	Name() string
	// Dialect describes the language the engine speaks; SQL engines'
	// dialects are SQLDialects.
	Dialect() Dialect
	// Connect opens one new connection. Each worker owns one Conn.
	Connect(ctx context.Context) (Conn, error)
	// ServerInfo returns the server version string and a snapshot of its
	// settings (SHOW ALL, SHOW GLOBAL VARIABLES, PRAGMAs).
	ServerInfo(ctx context.Context) (ServerInfo, error)
	// Close releases whatever the engine holds (not the Conns it handed out).
	Close() error
}

// ServerInfo is what an engine reports about the server behind a target.
type ServerInfo struct {
	Version  string            // e.g. "PostgreSQL 15.18"
	Settings map[string]string // name -> value
}

// Conn is one database connection of any engine. A Conn is not safe for
// concurrent use: it belongs to one goroutine. Workloads reach the
// engine's own abilities by type assertion: an SQLConn on SQL engines
// (see SQL), the engine package's connection type elsewhere.
type Conn interface {
	// Ping makes one round trip to the server doing as little as the
	// engine allows (SELECT 1, the ping command): the result file's
	// round-trip time.
	Ping(ctx context.Context) error
	// Catalog is how setup creates, inspects, loads and drops the
	// workload's tables on this connection.
	Catalog() Catalog
	// Close closes the connection.
	Close() error
}

// Rejoiner is a Conn whose driver replaces lost network connections by
// itself: a MongoDB session borrows a pooled connection for each
// operation, and the driver waits for a server that went away and refills
// its pool when the server is back. A worker that was between two
// transactions when that happened sees no error. Rejoined tells that the
// server was lost since the Conn was opened or since Rejoined last said
// so, once per loss, so that the runner counts a reconnect as it does on
// the engines whose connections fail.
type Rejoiner interface {
	Rejoined() bool
}

// SQLConn is a connection to an SQL engine.
type SQLConn interface {
	Conn
	// Exec runs one statement without arguments through the simple/text
	// protocol (DDL, BEGIN, SET …).
	Exec(ctx context.Context, sql string) error
	// Prepare prepares sql, written with '?' placeholders, as a server-side
	// prepared statement where the engine supports it. The statement lives
	// as long as the Conn.
	Prepare(ctx context.Context, sql string) (Stmt, error)
	// Begin, Commit and Rollback run BEGIN, COMMIT and ROLLBACK. Each counts
	// as one statement sent to the server.
	Begin(ctx context.Context) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	// QueryRow runs sql ('?' placeholders) with args and scans the first row
	// into dest (pointers to int64, float64, string, bool, time.Time, or
	// sql.Null* types). It returns ErrNoRows when the result is empty.
	// It is meant for setup and checks, not for the hot path.
	QueryRow(ctx context.Context, sql string, args []any, dest ...any) error
	// QueryRows runs sql ('?' placeholders) and calls fn once per row with
	// the row's values (int64, float64, string, []byte, bool, time.Time or
	// nil). The slice passed to fn is reused between calls.
	QueryRows(ctx context.Context, sql string, args []any, fn func(row []any) error) error
	// BulkLoad inserts every row of src into table (columns in order) by the
	// engine's fastest means (COPY, multi-row INSERT, one big transaction)
	// and returns the number of rows written.
	BulkLoad(ctx context.Context, table string, columns []string, src RowSource) (int64, error)
	// Dialect is the dialect of the engine this connection belongs to.
	Dialect() SQLDialect
}

// TextQuerier is implemented by SQLConns that hand a query's result as
// the server writes it, with its columns' names: what a workload that
// stores results by column name needs (the script workload's \gset and
// \aset, which keep pgbench's text of each value). Every SQL engine's
// connections implement it; it is not meant for the hot path of
// workloads that know their columns.
type TextQuerier interface {
	// QueryText runs sql, with args bound to its '?' placeholders, and
	// calls fn once per row of its result: result is 0, cols are the
	// columns' names as the server gives them, row the values in their
	// text form (the server's text for PostgreSQL, the driver's
	// conversion to text elsewhere), nil for NULL. Without args (nil)
	// and where MultiResults is true, sql may hold several statements
	// separated by semicolons, run in one call (PostgreSQL's simple
	// query protocol, which runs them as one implicit transaction):
	// result then numbers the statement the row belongs to, from 0;
	// statements without rows call fn for none. cols and row are reused
	// between calls; an error from fn stops the reading and is returned.
	QueryText(ctx context.Context, sql string, args []any, fn func(result int, cols []string, row [][]byte) error) error
	// MultiResults tells whether QueryText returns the rows of each of
	// several statements, numbered. Where it is false a caller sends
	// statements one by one (SQLite's driver runs them all but returns
	// the last one's rows; MySQL refuses several without the
	// multiStatements parameter).
	MultiResults() bool
}

// ErrNoTextQuery is returned by QueryText for a connection that is not
// a TextQuerier.
var ErrNoTextQuery = errors.New("the engine cannot return query results with their column names")

// QueryText runs sql on c through its TextQuerier; a connection without
// one gets an error wrapping ErrNoTextQuery naming its type.
func QueryText(ctx context.Context, c SQLConn, sql string, args []any, fn func(result int, cols []string, row [][]byte) error) error {
	tq, ok := c.(TextQuerier)
	if !ok {
		return fmt.Errorf("%w: %T", ErrNoTextQuery, c)
	}
	return tq.QueryText(ctx, sql, args, fn)
}

// ErrNotSQL is returned by SQL for a connection that does not speak SQL.
var ErrNotSQL = errors.New("not an SQL engine")

// SQL returns c as an SQLConn, or an error wrapping ErrNotSQL that names
// the engine when c's engine does not speak SQL.
func SQL(c Conn) (SQLConn, error) {
	if sc, ok := c.(SQLConn); ok {
		return sc, nil
	}
	return nil, fmt.Errorf("%w: %T", ErrNotSQL, c)
}

// Stmt is a prepared statement bound to one Conn. Arguments are int, int64,
// float64, string, []byte, bool, time.Time or nil.
type Stmt interface {
	// Exec runs the statement and returns the number of rows affected.
	Exec(ctx context.Context, args ...any) (int64, error)
	// Query runs the statement, reads every row without decoding it and
	// returns the number of rows read.
	Query(ctx context.Context, args ...any) (int64, error)
	// QueryRow runs the statement and scans the first row into dest; it
	// returns ErrNoRows when there is none.
	QueryRow(ctx context.Context, args []any, dest ...any) error
	// QueryEach runs the statement and, for every row, scans it into dest
	// (as QueryRow does) and calls fn. It returns the number of rows read;
	// an error from fn stops the reading and is returned.
	QueryEach(ctx context.Context, args []any, dest []any, fn func() error) (int64, error)
}

// RowSource feeds BulkLoad. Values may reuse its slice between calls.
type RowSource interface {
	Next() bool
	Values() ([]any, error)
	Err() error
}

// ConnectSQL opens one connection of e and returns it as an SQLConn; a
// connection of an engine that does not speak SQL is closed and refused
// with ErrNotSQL.
func ConnectSQL(ctx context.Context, e Engine) (SQLConn, error) {
	c, err := e.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, err := SQL(c)
	if err != nil {
		c.Close()
		return nil, err
	}
	return sc, nil
}

// ErrNoRows is returned by QueryRow when the query returned no row.
var ErrNoRows = errors.New("no rows in result set")

// ErrorClass is the kind of a database error, as the runner acts on it.
type ErrorClass int

const (
	// ClassOther is any error not listed below: counted, not retried.
	ClassOther ErrorClass = iota
	// ClassSerialization is a serialization failure (SQLSTATE 40001,
	// SQLITE_BUSY): the transaction may be retried.
	ClassSerialization
	// ClassDeadlock is a detected deadlock or lock wait timeout (40P01,
	// MySQL 1213/1205): the transaction may be retried.
	ClassDeadlock
	// ClassUniqueViolation is a duplicate key (23505, MySQL 1062,
	// SQLITE_CONSTRAINT_PRIMARYKEY/UNIQUE).
	ClassUniqueViolation
	// ClassConnLost means the connection is gone: reconnect.
	ClassConnLost
	// ClassCanceled means the context ended the statement (end of run or
	// Ctrl-C); it is not an error of the database.
	ClassCanceled
)

var classNames = [...]string{"other", "serialization", "deadlock", "unique_violation", "conn_lost", "canceled"}

func (c ErrorClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("ErrorClass(%d)", int(c))
}

// Family is the language an engine speaks. A workload implements its
// transactions once per family, not once per engine: every SQL engine runs
// the same statements through SQLConn and SQLDialect, and the document
// family runs its own (package workload documents how a workload registers
// a family's implementation).
type Family string

const (
	// FamilySQL is PostgreSQL, MySQL/MariaDB, SQLite and their wire
	// family: connections are SQLConns, dialects SQLDialects.
	FamilySQL Family = "sql"
	// FamilyMongo is MongoDB: connections are engine/mongo's sessions.
	FamilyMongo Family = "mongo"
)

// Dialect is what the runner needs to know about an engine's language:
// its name, its family and how to read its errors. Defined once per engine.
type Dialect interface {
	// Name is the engine's name ("postgres", "mysql", "sqlite",
	// "mongodb").
	Name() string
	// Family is the language family the engine belongs to.
	Family() Family
	// Classify tells what kind of error err is, using the driver's typed
	// errors (errors.As), never the message text.
	Classify(err error) ErrorClass
	// Capabilities states what the engine can do.
	Capabilities() Capabilities
}

// SQLDialect is what differs between SQL engines, defined once per engine.
type SQLDialect interface {
	Dialect
	// Rebind turns '?' placeholders into the engine's own ($1, $2 … on
	// PostgreSQL). '?' inside quoted strings is left alone.
	Rebind(sql string) string
	// ColumnType is the DDL type of a column declared as c: c.Type with
	// c.Size and c.Scale where the type takes them (CHAR(size),
	// VARCHAR(size), DECIMAL(size, scale)). A schema.Serial column's type
	// carries what numbers it (SERIAL, AUTO_INCREMENT), never its key:
	// the caller declares PRIMARY KEY (col) as a table constraint. c's
	// name, nullability and default are not part of it.
	ColumnType(c schema.Column) string
	// QuoteIdent quotes an identifier.
	QuoteIdent(name string) string
	// TableExistsSQL is a query with one '?' argument (a table name) that
	// returns one row with a count > 0 when the table exists in the
	// connection's current schema/database.
	TableExistsSQL() string
	// ColumnsSQL is a query with one '?' argument (a table name) that
	// returns the table's column names, one per row, in ordinal order.
	ColumnsSQL() string
	// ClockSQL is a query returning one row with one integer: the
	// server's clock in microseconds since the Unix epoch.
	ClockSQL() string
}

// ProcessReporter is implemented by engines whose server tells its own
// process id and data directory (MongoDB's serverStatus and
// getCmdLineOpts), for server metrics when the server runs on the same
// host as dbarena. Engines whose ServerStats say where their process is
// (ProcessLocator) do not need it.
type ProcessReporter interface {
	ServerProcess(ctx context.Context) (ServerProcess, error)
}

// ServerProcess is what a server says about its own process.
type ServerProcess struct {
	PID     int
	DataDir string
	// Name is the program's name ("mongod"), to recognise it in /proc.
	Name string
}

// SequenceResetter is implemented by dialects whose auto-increment columns
// do not follow explicitly inserted values (PostgreSQL's SERIAL). After a
// load that wrote ids itself, a workload runs ResetSequenceSQL so that
// later inserts without an id continue after MAX(col). Dialects whose
// counters advance by themselves (MySQL AUTO_INCREMENT, SQLite rowid) do
// not implement it.
type SequenceResetter interface {
	ResetSequenceSQL(table, col string) string
}

// DeferredPrimaryKey is implemented by dialects where building a primary
// key after a bulk load (one sorted index build) is much cheaper than
// maintaining it row by row during the load (PostgreSQL, whose tables are
// heaps). Dialects whose tables are organised by their primary key (InnoDB,
// SQLite rowid tables) do not implement it: there the key belongs in
// CREATE TABLE.
type DeferredPrimaryKey interface {
	AddPrimaryKeySQL(table string, cols ...string) string
}

// Opener opens an Engine for a target of one URL scheme.
type Opener func(ctx context.Context, t Target, opts Options) (Engine, error)

// Options are engine-independent connection settings.
type Options struct {
	// ConnectTimeout bounds every connection attempt.
	ConnectTimeout time.Duration
}

// Sentinel errors for targets and connections.
var (
	ErrUnknownScheme = errors.New("unknown target scheme")
	ErrBadTarget     = errors.New("malformed target")
	// ErrConnect marks a failure to reach or log in to a server.
	ErrConnect = errors.New("cannot connect")
	// ErrAuth marks a rejected login (wrong user or password).
	ErrAuth = errors.New("authentication failed")
)

// TargetError is a problem with one target; its message names the target
// (redacted) and the field at fault.
type TargetError struct {
	Target string // redacted URL or label
	Field  string // e.g. "scheme", "host", "password"
	Err    error
}

func (e *TargetError) Error() string {
	return fmt.Sprintf("target %s: %s: %v", e.Target, e.Field, e.Err)
}

func (e *TargetError) Unwrap() error { return e.Err }

// CtxErr makes an error caused by the end of ctx match context.Canceled or
// context.DeadlineExceeded with errors.Is, whatever the driver returned
// (a server-side cancellation, a closed socket). nil stays nil.
func CtxErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// ConnectError is a failed connection attempt with a message the engine
// wrote itself (drivers' messages may carry connection parameters). It
// unwraps to ErrConnect, to ErrAuth for a rejected login, and to the
// driver's error.
type ConnectError struct {
	Msg   string
	Auth  bool
	Cause error
}

func (e *ConnectError) Error() string { return e.Msg }

// Unwrap returns ErrConnect, ErrAuth when the login was refused, and the
// driver's error.
func (e *ConnectError) Unwrap() []error {
	if e.Auth {
		return []error{ErrConnect, ErrAuth, e.Cause}
	}
	return []error{ErrConnect, e.Cause}
}
