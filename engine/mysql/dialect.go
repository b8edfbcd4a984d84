package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/dbarena/dbarena/engine"
)

// Dialect is the MySQL/MariaDB SQL dialect. The zero value is ready to use.
type Dialect struct{}

var _ engine.SQLDialect = Dialect{}

// Name returns "mysql".
func (Dialect) Name() string { return "mysql" }

// Family returns engine.FamilySQL.
func (Dialect) Family() engine.Family { return engine.FamilySQL }

// Capabilities states what MySQL and MariaDB can do: no pipelines (the
// driver sends one statement per round trip).
func (Dialect) Capabilities() engine.Capabilities { return capabilities }

var capabilities = engine.Capabilities{
	Kind: engine.KindMySQL, Family: engine.FamilySQL,
	Transactions: true, Isolation: []string{engine.ReadCommitted, engine.RepeatableRead, engine.Serializable},
	Procedures: true, TextResults: true,
	LockingRead: " FOR UPDATE", Upsert: engine.UpsertOnDuplicateKey, LateForeignKeys: true,
}

// Rebind returns sql unchanged: MySQL's placeholders are '?'.
func (Dialect) Rebind(sql string) string { return sql }

// QuoteIdent quotes name with backticks.
func (Dialect) QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// ClockSQL reads the server's clock in microseconds.
func (Dialect) ClockSQL() string {
	return "SELECT CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)"
}

// TableExistsSQL counts tables of that name in the current database.
func (Dialect) TableExistsSQL() string {
	return "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?"
}

// ColumnsSQL lists a table's columns of the current database in order,
// leaving out generated columns (those behind JSON-path index keys).
func (Dialect) ColumnsSQL() string {
	return "SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? AND COALESCE(generation_expression, '') = '' ORDER BY ordinal_position"
}

// MySQL and MariaDB server error numbers Classify knows.
const (
	erLockWaitTimeout  = 1205
	erLockDeadlock     = 1213
	erDupEntry         = 1062
	erDupEntryWithKey  = 1586
	erCheckRead        = 1020 // "Record has changed since last read" (MariaDB snapshot isolation)
	erServerShutdown   = 1053
	erConnectionKilled = 1927 // MariaDB ER_CONNECTION_KILLED
	erClientInterr     = 4031 // MySQL: disconnected by the server because of inactivity
	crServerGone       = 2006
	crServerLost       = 2013

	erSpecificAccessDenied = 1227 // "you need (at least one of) the PROCESS privilege(s)"
	erTableAccessDenied    = 1142
	erUnknownTable         = 1109
)

// Classify maps err to an engine.ErrorClass: context end first, then the
// server's error number (*mysql.MySQLError), then the signs of a lost
// connection.
func (Dialect) Classify(err error) engine.ErrorClass {
	if err == nil {
		return engine.ClassOther
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return engine.ClassCanceled
	}
	var myErr *mysql.MySQLError
	if errors.As(err, &myErr) {
		switch myErr.Number {
		case erLockDeadlock, erLockWaitTimeout:
			return engine.ClassDeadlock
		case erDupEntry, erDupEntryWithKey:
			return engine.ClassUniqueViolation
		case erCheckRead:
			return engine.ClassSerialization
		case erServerShutdown, erConnectionKilled, erClientInterr, crServerGone, crServerLost:
			return engine.ClassConnLost
		}
		return engine.ClassOther
	}
	var netErr net.Error
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &netErr) {
		return engine.ClassConnLost
	}
	return engine.ClassOther
}

// IsolationSQL sets the session's transaction isolation level.
func (Dialect) IsolationSQL(level string) (string, error) {
	return engine.IsolationSQL("SET SESSION TRANSACTION ISOLATION LEVEL", level)
}
