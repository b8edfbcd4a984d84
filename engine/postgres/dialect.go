package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbarena/dbarena/engine"
)

// Dialect is PostgreSQL's SQL dialect. The zero value is ready to use.
type Dialect struct{}

var _ engine.SQLDialect = Dialect{}

// Name returns "postgres".
func (Dialect) Name() string { return "postgres" }

// Family returns engine.FamilySQL.
func (Dialect) Family() engine.Family { return engine.FamilySQL }

// Capabilities states what PostgreSQL and its wire family can do.
func (Dialect) Capabilities() engine.Capabilities { return capabilities }

var capabilities = engine.Capabilities{
	Kind: engine.KindPostgres, Family: engine.FamilySQL,
	Transactions: true, Isolation: []string{engine.ReadCommitted, engine.RepeatableRead, engine.Serializable},
	Procedures: true, Pipelines: true, TextResults: true, MultiResults: true,
	LockingRead: " FOR UPDATE", PreferIndexScans: "SET LOCAL enable_seqscan = off",
	Upsert: engine.UpsertOnConflict, LateForeignKeys: true, Driven: true,
}

// Rebind turns '?' placeholders into $1, $2 …, leaving alone any '?' inside
// single-quoted strings, double-quoted identifiers and comments.
func (Dialect) Rebind(sql string) string { return Rebind(sql) }

// Rebind is Dialect.Rebind as a function.
func Rebind(sql string) string {
	if strings.IndexByte(sql, '?') < 0 {
		return sql
	}
	var b strings.Builder
	b.Grow(len(sql) + 8)
	n := 0
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			j := skipQuoted(sql, i, c)
			b.WriteString(sql[i:j])
			i = j - 1
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			b.WriteString(sql[i : i+j])
			i += j - 1
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			j := strings.Index(sql[i+2:], "*/")
			end := len(sql)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(sql[i:end])
			i = end - 1
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// skipQuoted returns the index just past the quoted run that starts at
// sql[i] == q; a doubled quote inside is an escaped quote.
func skipQuoted(sql string, i int, q byte) int {
	for j := i + 1; j < len(sql); j++ {
		if sql[j] == q {
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

// QuoteIdent quotes name as a PostgreSQL identifier.
func (Dialect) QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// ClockSQL reads the server's clock in microseconds.
func (Dialect) ClockSQL() string {
	return "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"
}

// TableExistsSQL counts tables of that name in the current schema.
func (Dialect) TableExistsSQL() string {
	return "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?"
}

// ColumnsSQL lists a table's columns of the current schema in order.
func (Dialect) ColumnsSQL() string {
	return "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position"
}

// Classify maps err to an engine.ErrorClass: context end first, then the
// server's SQLSTATE (*pgconn.PgError), then the signs of a lost connection.
// ResetSequenceSQL moves the sequence behind table.col past MAX(col), so
// inserts without an id continue after explicitly loaded ids.
func (d Dialect) ResetSequenceSQL(table, col string) string {
	return fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', '%s'), (SELECT COALESCE(MAX(%s), 0) + 1 FROM %s), false)",
		strings.ReplaceAll(table, "'", "''"), strings.ReplaceAll(col, "'", "''"), d.QuoteIdent(col), d.QuoteIdent(table))
}

var _ engine.SequenceResetter = Dialect{}

// AddPrimaryKeySQL adds a primary key to a loaded table: one sorted build,
// WAL-logged page by page, instead of one index insertion per row.
func (d Dialect) AddPrimaryKeySQL(table string, cols ...string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = d.QuoteIdent(c)
	}
	return "ALTER TABLE " + d.QuoteIdent(table) + " ADD PRIMARY KEY (" + strings.Join(q, ", ") + ")"
}

var _ engine.DeferredPrimaryKey = Dialect{}

func (Dialect) Classify(err error) engine.ErrorClass {
	if err == nil {
		return engine.ClassOther
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return engine.ClassCanceled
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "40001": // serialization_failure
			return engine.ClassSerialization
		case "40P01", "55P03": // deadlock_detected, lock_not_available
			return engine.ClassDeadlock
		case "23505": // unique_violation
			return engine.ClassUniqueViolation
		case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
			return engine.ClassConnLost
		}
		if strings.HasPrefix(pgErr.Code, "08") { // connection_exception
			return engine.ClassConnLost
		}
		return engine.ClassOther
	}
	var netErr net.Error
	if errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.As(err, &netErr) || pgconn.SafeToRetry(err) {
		return engine.ClassConnLost
	}
	return engine.ClassOther
}

// IsolationSQL sets the session's default transaction isolation level.
func (Dialect) IsolationSQL(level string) (string, error) {
	return engine.IsolationSQL("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL", level)
}
