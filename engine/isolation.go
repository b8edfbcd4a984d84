package engine

import (
	"context"
	"fmt"
)

// Isolation levels a workload can ask for, as its --isolation option
// spells them.
const (
	ReadCommitted  = "read-committed"
	RepeatableRead = "repeatable-read"
	Serializable   = "serializable"
)

// Isolator is implemented by dialects that can set a session's
// transaction isolation level. IsolationSQL returns the statement that
// sets level for every later transaction of the session ("" when there is
// nothing to run: the engine always works that way), or an error that
// names the level when the engine has no such level.
type Isolator interface {
	IsolationSQL(level string) (string, error)
}

// SetIsolation sets c's isolation level for the transactions that follow.
// An empty level leaves the engine's default.
func SetIsolation(ctx context.Context, c SQLConn, level string) error {
	if level == "" {
		return nil
	}
	iso, ok := c.Dialect().(Isolator)
	if !ok {
		return fmt.Errorf("%s: cannot set the isolation level", c.Dialect().Name())
	}
	sql, err := iso.IsolationSQL(level)
	if err != nil || sql == "" {
		return err
	}
	return c.Exec(ctx, sql)
}

// isolationName maps the three levels to SQL's names, for dialects that
// take "SET … ISOLATION LEVEL <name>".
func isolationName(level string) (string, bool) {
	switch level {
	case ReadCommitted:
		return "READ COMMITTED", true
	case RepeatableRead:
		return "REPEATABLE READ", true
	case Serializable:
		return "SERIALIZABLE", true
	}
	return "", false
}

// IsolationSQL builds "<prefix> <SQL name of level>" for the three
// levels, or an error naming level.
func IsolationSQL(prefix, level string) (string, error) {
	name, ok := isolationName(level)
	if !ok {
		return "", fmt.Errorf("isolation level %q: want %s, %s or %s", level, ReadCommitted, RepeatableRead, Serializable)
	}
	return prefix + " " + name, nil
}

// UpsertStyle is how a dialect inserts a row or updates the one with the
// same key.
type UpsertStyle int

const (
	// UpsertOnConflict: INSERT … ON CONFLICT (keys) DO UPDATE SET …,
	// the new row named EXCLUDED (PostgreSQL, SQLite).
	UpsertOnConflict UpsertStyle = iota + 1
	// UpsertOnDuplicateKey: INSERT … ON DUPLICATE KEY UPDATE …, the new
	// row's values as VALUES(col) (MySQL, MariaDB).
	UpsertOnDuplicateKey
)
