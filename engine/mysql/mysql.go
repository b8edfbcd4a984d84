// Package mysql is dbarena's MySQL and MariaDB engine, built on
// go-sql-driver/mysql.
//
// It serves targets of the form
//
//	mysql://user@host:port/database?tls=skip-verify&socket=/run/mysqld/mysqld.sock
//
// (and mariadb://, which engine.ParseTarget rewrites). "socket" selects a
// Unix socket instead of host:port; every other parameter goes to the driver
// as a DSN parameter (tls, collation, readTimeout, or a server variable).
// The password comes from engine.Target.Password, never from the URL.
//
// Each engine.Conn is one *sql.Conn of a database/sql pool, and each Stmt a
// server-side prepared statement on it (binary protocol), whatever
// interpolateParams says.
//
// Importing the package registers the engine (scheme "mysql", alias
// "mariadb", password variable MYSQL_PWD) with engine.Register. The
// managed MariaDB server is package server/mariadb.
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sniff"
	"github.com/dbarena/dbarena/engine/internal/sqlconn"
)

// Engine is an open MySQL or MariaDB target. It is safe for concurrent use.
type Engine struct {
	target engine.Target
	config *mysql.Config
	db     *sql.DB
}

var _ engine.Engine = (*Engine)(nil)

// Open builds the driver configuration from t and checks that a
// connection can be made (and the login is accepted) within
// opts.ConnectTimeout. Errors wrap engine.ErrBadTarget, engine.ErrConnect or
// engine.ErrAuth; their text names user and host but never the password.
func Open(ctx context.Context, t engine.Target, opts engine.Options) (engine.Engine, error) {
	cfg, err := Config(t, opts)
	if err != nil {
		return nil, err
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, &engine.TargetError{Target: t.Redacted(), Field: "url", Err: fmt.Errorf("%w: %v", engine.ErrBadTarget, err)}
	}
	db := sql.OpenDB(conn)
	db.SetMaxIdleConns(4)
	e := &Engine{target: t, config: cfg, db: db}
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	if err := e.ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return e, nil
}

// probeAfter is how long a first connection may take before Open looks
// at what answers on the port: a MySQL server greets at once, while a
// PostgreSQL server waits for the client to speak, so the driver would
// wait for the whole connect timeout.
const probeAfter = 500 * time.Millisecond

// ping checks that a connection can be made and the login is accepted.
// When the server has not greeted after probeAfter, a second connection
// looks at what listens there, and a PostgreSQL server is reported at
// once.
func (e *Engine) ping(ctx context.Context) error {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.db.PingContext(pctx) }()
	if e.config.Net != "tcp" {
		return e.connectError(<-done)
	}
	timer := time.NewTimer(probeAfter)
	defer timer.Stop()
	select {
	case err := <-done:
		return e.connectError(err)
	case <-timer.C:
	}
	probed := make(chan sniff.Protocol, 1)
	go func() { probed <- sniff.Probe(pctx, e.config.Addr, probeAfter) }()
	select {
	case err := <-done:
		return e.connectError(err)
	case p := <-probed:
		if p != sniff.Unknown && p != sniff.MySQL {
			cancel()
			<-done
			return &engine.TargetError{Target: e.target.Redacted(), Field: "host", Err: &engine.ConnectError{
				Msg:   fmt.Sprintf("%v: the server at %s does not speak the MySQL protocol (is it %s?)", engine.ErrConnect, e.config.Addr, p.Name()),
				Cause: errors.New("wrong protocol"),
			}}
		}
		return e.connectError(<-done)
	}
}

// Config builds the driver configuration for t: host and port (or the
// "socket" parameter), database, the other URL parameters, the password from
// t.Password and opts.ConnectTimeout as the dial timeout. ParseTime is on.
func Config(t engine.Target, opts engine.Options) (*mysql.Config, error) {
	bad := func(field string, err error) error {
		return &engine.TargetError{Target: t.Redacted(), Field: field, Err: fmt.Errorf("%w: %v", engine.ErrBadTarget, err)}
	}
	if t.URL == nil {
		return nil, bad("url", errors.New("no URL"))
	}
	q, err := url.ParseQuery(t.URL.RawQuery)
	if err != nil {
		return nil, bad("url", err)
	}
	netw, addr := "tcp", t.URL.Host
	if s := q.Get("socket"); s != "" {
		netw, addr = "unix", s
		q.Del("socket")
	} else if addr == "" {
		addr = "127.0.0.1:3306"
	} else if t.URL.Port() == "" {
		addr = net.JoinHostPort(t.URL.Hostname(), "3306")
	}
	db := strings.TrimPrefix(t.URL.Path, "/")
	if strings.Contains(db, "/") {
		return nil, bad("database", fmt.Errorf("database name %q contains '/'", db))
	}
	// The driver parses its own parameters; the DSN it sees holds no
	// user or password, so its errors cannot reveal them.
	dsn := netw + "(" + addr + ")/" + url.PathEscape(db)
	if len(q) > 0 {
		dsn += "?" + q.Encode()
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, bad("url", err)
	}
	cfg.User = t.Username()
	cfg.Passwd = t.Password.Reveal()
	cfg.ParseTime = true
	// The driver logs what its errors say already ("packets.go:58
	// unexpected EOF" for a lost connection) to the process's stderr,
	// over the live lines: dbarena reports the errors themselves.
	cfg.Logger = quietLogger{}
	if opts.ConnectTimeout > 0 {
		cfg.Timeout = opts.ConnectTimeout
	}
	return cfg, nil
}

// quietLogger drops the driver's log lines.
type quietLogger struct{}

func (quietLogger) Print(...any) {}

// MySQL server error numbers for a rejected login or a missing database.
const (
	erDBAccessDenied     = 1044
	erAccessDenied       = 1045
	erBadDB              = 1049
	erAccessDeniedNoPass = 1698
)

func (e *Engine) connectError(err error) error {
	if err == nil {
		return nil
	}
	host := e.config.Addr
	var myErr *mysql.MySQLError
	if errors.As(err, &myErr) {
		switch myErr.Number {
		case erBadDB:
			return &engine.TargetError{Target: e.target.Redacted(), Field: "database", Err: &engine.ConnectError{
				Msg:   fmt.Sprintf("%v: %s@%s: database %q does not exist (error %d)", engine.ErrConnect, e.config.User, host, e.config.DBName, myErr.Number),
				Cause: err,
			}}
		case erDBAccessDenied:
			// The server says the same of a database that does not
			// exist to a user without global rights.
			return &engine.TargetError{Target: e.target.Redacted(), Field: "database", Err: &engine.ConnectError{
				Msg: fmt.Sprintf("%v: %v: user %q may not use database %q at %s: it does not exist, or access to it is denied (error %d)",
					engine.ErrConnect, engine.ErrAuth, e.config.User, e.config.DBName, host, myErr.Number),
				Auth:  true,
				Cause: err,
			}}
		case erAccessDenied, erAccessDeniedNoPass:
			return &engine.TargetError{Target: e.target.Redacted(), Field: "password", Err: &engine.ConnectError{
				Msg:   fmt.Sprintf("%v: %v: server rejected login of user %q at %s (error %d)", engine.ErrConnect, engine.ErrAuth, e.config.User, host, myErr.Number),
				Auth:  true,
				Cause: err,
			}}
		}
	}
	return &engine.TargetError{Target: e.target.Redacted(), Field: "host", Err: &engine.ConnectError{
		Msg:   fmt.Sprintf("%v: %s@%s: %v", engine.ErrConnect, e.config.User, host, err),
		Cause: err,
	}}
}

// Name returns "mysql".
func (e *Engine) Name() string { return "mysql" }

// Dialect returns the MySQL dialect.
func (e *Engine) Dialect() engine.Dialect { return Dialect{} }

// Connect opens a new connection.
func (e *Engine) Connect(ctx context.Context) (engine.Conn, error) {
	if e.config.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.config.Timeout)
		defer cancel()
	}
	sc, err := e.db.Conn(ctx)
	if err == nil {
		err = sc.PingContext(ctx)
		if err != nil {
			sc.Close()
		}
	}
	if err != nil {
		return nil, e.connectError(err)
	}
	return &Conn{sqlconn.New(sc, "BEGIN", normalizeColumn)}, nil
}

// ServerInfo reports "MariaDB <version>" or "MySQL <version>" and SHOW
// GLOBAL VARIABLES.
func (e *Engine) ServerInfo(ctx context.Context) (engine.ServerInfo, error) {
	var info engine.ServerInfo
	var ver string
	if err := e.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&ver); err != nil {
		return info, fmt.Errorf("mysql: server version: %w", err)
	}
	info.Version = versionString(ver)
	rows, err := e.db.QueryContext(ctx, "SHOW GLOBAL VARIABLES")
	if err != nil {
		return info, fmt.Errorf("mysql: settings: %w", err)
	}
	defer rows.Close()
	info.Settings = map[string]string{}
	for rows.Next() {
		var k, v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return info, fmt.Errorf("mysql: settings: %w", err)
		}
		info.Settings[k.String] = v.String
	}
	if err := rows.Err(); err != nil {
		return info, fmt.Errorf("mysql: settings: %w", err)
	}
	return info, nil
}

// versionString turns SELECT VERSION() into "MariaDB 10.11.19" or "MySQL
// 8.0.36".
func versionString(v string) string {
	if i := strings.Index(v, "-MariaDB"); i >= 0 {
		return "MariaDB " + strings.TrimPrefix(v[:i], "5.5.5-")
	}
	if i := strings.IndexByte(v, '-'); i >= 0 {
		v = v[:i]
	}
	return "MySQL " + v
}

// Close closes the pool.
func (e *Engine) Close() error { return e.db.Close() }

// Conn is one MySQL connection: the database/sql methods every such
// engine shares (sqlconn.Conn: Exec, Prepare, Begin, Commit, Rollback,
// QueryRow, QueryRows, Ping, Close) plus MySQL's BulkLoad. QueryRows
// normalises values by column type: integers to int64, DECIMAL, FLOAT and
// DOUBLE to float64, character types to string, binary types to []byte,
// DATETIME to time.Time, NULL to nil. Close closes the connection itself
// (it does not go back to the pool). It is not safe for concurrent use.
type Conn struct {
	sqlconn.Conn
}

var _ engine.SQLConn = (*Conn)(nil)
var _ engine.TextQuerier = (*Conn)(nil)

type colKind int

const (
	kindString colKind = iota
	kindInt
	kindUint
	kindFloat
	kindBytes
)

// kindOf classifies a driver column type name (e.g. "UNSIGNED BIGINT").
func kindOf(name string) colKind {
	unsigned := strings.HasPrefix(name, "UNSIGNED ")
	switch strings.TrimPrefix(name, "UNSIGNED ") {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR":
		if unsigned {
			return kindUint
		}
		return kindInt
	case "DECIMAL", "FLOAT", "DOUBLE":
		return kindFloat
	case "BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB", "BIT", "GEOMETRY":
		return kindBytes
	}
	return kindString
}

// normalizeColumn is the sqlconn.Normalizer of MySQL: normalize by the
// column's kind.
func normalizeColumn(dbType string, v any) any { return normalize(kindOf(dbType), v) }

// normalize maps a scanned value onto the types Conn.QueryRows promises.
// The text protocol returns every value as []byte; the binary one returns
// numbers typed.
func normalize(k colKind, v any) any {
	switch x := v.(type) {
	case nil, int64, float64, bool, time.Time, string:
		return v
	case float32:
		return float64(x)
	case uint64:
		if x <= 1<<63-1 {
			return int64(x)
		}
		return strconv.FormatUint(x, 10)
	case []byte:
		s := string(x)
		switch k {
		case kindInt:
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n
			}
		case kindUint:
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n
			}
		case kindFloat:
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return f
			}
		case kindBytes:
			return x
		}
		return s
	}
	return fmt.Sprint(v)
}

// BulkLoad inserts src's rows with multi-row INSERT statements of up to
// min(1000, 65535/len(columns)) rows, prepared once, committing every ten
// statements. On error it rolls back the open transaction and returns the
// rows committed before it.
func (c *Conn) BulkLoad(ctx context.Context, table string, columns []string, src engine.RowSource) (int64, error) {
	if len(columns) == 0 {
		return 0, errors.New("mysql: BulkLoad without columns")
	}
	per := min(1000, 65535/len(columns))
	const batchesPerTx = 10
	var (
		full      *sql.Stmt
		args      = make([]any, 0, per*len(columns))
		committed int64
		pending   int64
		batches   int
		inTx      bool
	)
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	fail := func(err error) (int64, error) {
		if inTx {
			_ = c.Rollback(context.WithoutCancel(ctx))
		}
		return committed, engine.CtxErr(ctx, err)
	}
	flush := func(st *sql.Stmt) error {
		if !inTx {
			if err := c.Begin(ctx); err != nil {
				return err
			}
			inTx = true
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
		pending += int64(len(args) / len(columns))
		args = args[:0]
		batches++
		if batches%batchesPerTx == 0 {
			if err := c.Commit(ctx); err != nil {
				return err
			}
			inTx = false
			committed += pending
			pending = 0
		}
		return nil
	}
	for src.Next() {
		vals, err := src.Values()
		if err != nil {
			return fail(err)
		}
		if len(vals) != len(columns) {
			return fail(fmt.Errorf("mysql: BulkLoad: row has %d values for %d columns", len(vals), len(columns)))
		}
		for _, v := range vals {
			if b, ok := v.([]byte); ok { // the source may reuse it
				v = append([]byte(nil), b...)
			}
			args = append(args, v)
		}
		if len(args) == per*len(columns) {
			if full == nil {
				if full, err = c.SQLConn().PrepareContext(ctx, insertSQL(table, columns, per)); err != nil {
					return fail(err)
				}
			}
			if err := flush(full); err != nil {
				return fail(err)
			}
		}
	}
	if err := src.Err(); err != nil {
		return fail(err)
	}
	if len(args) > 0 {
		st, err := c.SQLConn().PrepareContext(ctx, insertSQL(table, columns, len(args)/len(columns)))
		if err != nil {
			return fail(err)
		}
		err = flush(st)
		st.Close()
		if err != nil {
			return fail(err)
		}
	}
	if inTx {
		if err := c.Commit(ctx); err != nil {
			return fail(err)
		}
		committed += pending
	}
	return committed, nil
}

func insertSQL(table string, columns []string, rows int) string {
	d := Dialect{}
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(d.QuoteIdent(table))
	b.WriteString(" (")
	for i, col := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.QuoteIdent(col))
	}
	b.WriteString(") VALUES ")
	tuple := "(?" + strings.Repeat(", ?", len(columns)-1) + ")"
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(tuple)
	}
	return b.String()
}

// Dialect returns the engine's dialect.
func (c *Conn) Dialect() engine.SQLDialect { return Dialect{} }

// Catalog implements engine.Conn: the catalog every SQL engine shares,
// with MySQL's way of adding foreign keys (see catalog).
func (c *Conn) Catalog() engine.Catalog { return catalog{engine.SQLCatalog{C: c}} }
