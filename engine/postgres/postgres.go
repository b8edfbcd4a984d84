// Package postgres is dbarena's PostgreSQL engine, built on pgx v5.
//
// It serves targets of the form
//
//	postgres://user@host:port/database?sslmode=disable&default_query_exec_mode=exec
//
// (and postgresql://, which engine.ParseTarget rewrites). Every parameter pgx
// understands may be given in the URL; the password comes from
// engine.Target.Password, never from the URL.
//
// In pgx's default exec mode (cache_statement) prepared statements run on
// pgconn directly: prepared once under a name, arguments encoded into
// buffers the statement reuses, results read without decoding when only
// counted. That keeps dbarena's client CPU per query close to pgbench's.
// The other modes (exec, describe_exec, cache_describe, simple_protocol;
// needed behind PgBouncer in transaction mode, where named statements do not
// survive) run statements through pgx.Conn's Exec and Query in that mode.
//
// Importing the package registers the engine (scheme "postgres", alias
// "postgresql", password variable PGPASSWORD) with engine.Register. The
// managed PostgreSQL and PgBouncer servers are package server/postgres.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dbarena/dbarena/drive"
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sniff"
)

// Engine is an open PostgreSQL target. It is safe for concurrent use.
type Engine struct {
	target engine.Target
	config *pgx.ConnConfig
	// fast is true in QueryExecModeCacheStatement, where Stmts use named
	// server-side statements through pgconn.
	fast bool
}

var (
	_ engine.Engine = (*Engine)(nil)
)

// Open parses t into a pgx configuration and checks that a connection can
// be made (and the login is accepted) within opts.ConnectTimeout. Errors
// wrap engine.ErrBadTarget, engine.ErrConnect or engine.ErrAuth; their text
// names user and host but never the password.
func Open(ctx context.Context, t engine.Target, opts engine.Options) (engine.Engine, error) {
	cfg, err := Config(t, opts)
	if err != nil {
		return nil, err
	}
	e := &Engine{target: t, config: cfg, fast: cfg.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement}
	c, err := e.connect(ctx)
	if err != nil {
		return nil, err
	}
	_ = c.Close(context.Background())
	return e, nil
}

// Config builds the pgx configuration for t: the URL's parameters, the
// password from t.Password and opts.ConnectTimeout.
func Config(t engine.Target, opts engine.Options) (*pgx.ConnConfig, error) {
	if t.URL == nil {
		return nil, &engine.TargetError{Target: t.Redacted(), Field: "url", Err: engine.ErrBadTarget}
	}
	u := *t.URL
	if u.User != nil { // never hand pgx a password through the URL
		u.User = url.User(u.User.Username())
	}
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		// pgx's message repeats the connection string; ours does not.
		var pce *pgconn.ParseConfigError
		msg := "invalid connection parameters"
		if errors.As(err, &pce) && errors.Unwrap(pce) != nil {
			msg += ": " + errors.Unwrap(pce).Error()
		}
		return nil, &engine.TargetError{Target: t.Redacted(), Field: "url", Err: fmt.Errorf("%w: %s", engine.ErrBadTarget, msg)}
	}
	if t.Password.IsSet() {
		cfg.Password = t.Password.Reveal()
	}
	if opts.ConnectTimeout > 0 {
		cfg.ConnectTimeout = opts.ConnectTimeout
	}
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return drive.Adopt(ctx, c) // a run's thread waits on it, if ctx names one
	}
	return cfg, nil
}

// connect opens one pgx connection and turns its failure into an error that
// names user and host only.
func (e *Engine) connect(ctx context.Context) (*pgx.Conn, error) {
	if e.config.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.config.ConnectTimeout)
		defer cancel()
	}
	c, err := pgx.ConnectConfig(ctx, e.config)
	if err == nil {
		return c, nil
	}
	return nil, e.connectError(ctx, err)
}

// sqlstateInvalidCatalog is PostgreSQL's "database does not exist".
const sqlstateInvalidCatalog = "3D000"

func (e *Engine) connectError(ctx context.Context, err error) error {
	host := net.JoinHostPort(e.config.Host, strconv.Itoa(int(e.config.Port)))
	who := e.config.User + "@" + host
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "28P01" || pgErr.Code == "28000") {
		return &engine.TargetError{Target: e.target.Redacted(), Field: "password", Err: &engine.ConnectError{
			Msg:   fmt.Sprintf("%v: %v: server rejected login of user %q at %s (SQLSTATE %s)", engine.ErrConnect, engine.ErrAuth, e.config.User, host, pgErr.Code),
			Auth:  true,
			Cause: err,
		}}
	}
	if pgErr != nil && pgErr.Code == sqlstateInvalidCatalog {
		return &engine.TargetError{Target: e.target.Redacted(), Field: "database", Err: &engine.ConnectError{
			Msg:   fmt.Sprintf("%v: %s: database %q does not exist (SQLSTATE %s)", engine.ErrConnect, who, e.config.Database, pgErr.Code),
			Cause: err,
		}}
	}
	if pgErr == nil && ctx.Err() == nil && !strings.HasPrefix(e.config.Host, "/") && !isDialError(err) {
		// Something answered, but not as PostgreSQL does: say what.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if p := sniff.Probe(pctx, host, 500*time.Millisecond); p != sniff.Unknown && p != sniff.PostgreSQL {
			return &engine.TargetError{Target: e.target.Redacted(), Field: "host", Err: &engine.ConnectError{
				Msg:   fmt.Sprintf("%v: the server at %s does not speak the PostgreSQL protocol (is it %s?)", engine.ErrConnect, host, p.Name()),
				Cause: err,
			}}
		}
	}
	cause := "no answer"
	if pgErr != nil {
		cause = pgErr.Severity + ": " + pgErr.Message + " (SQLSTATE " + pgErr.Code + ")"
	} else if inner := rootCause(err); inner != nil {
		// pgconn wraps a nil error into some messages.
		cause = strings.ReplaceAll(inner.Error(), ": %!w(<nil>)", "")
	}
	return &engine.TargetError{Target: e.target.Redacted(), Field: "host", Err: &engine.ConnectError{
		Msg:   fmt.Sprintf("%v: %s: %s", engine.ErrConnect, who, cause),
		Cause: err,
	}}
}

// isDialError reports whether err is a failure to reach the server at all
// (refused, unreachable, timed out dialling).
func isDialError(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// rootCause is the innermost error of a chain of single wraps (a dial
// error, a timeout), which never carries the connection string.
func rootCause(err error) error {
	for {
		var ne net.Error
		if errors.As(err, &ne) {
			return ne
		}
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// Name returns "postgres".
func (e *Engine) Name() string { return "postgres" }

// Dialect returns the PostgreSQL dialect.
func (e *Engine) Dialect() engine.Dialect { return Dialect{} }

// Connect opens a new connection.
func (e *Engine) Connect(ctx context.Context) (engine.Conn, error) {
	c, err := e.connect(ctx)
	if err != nil {
		return nil, err
	}
	return &Conn{conn: c, pg: c.PgConn(), fast: e.fast}, nil
}

// ServerInfo reports "PostgreSQL <server_version>" and SHOW ALL.
func (e *Engine) ServerInfo(ctx context.Context) (engine.ServerInfo, error) {
	c, err := e.connect(ctx)
	if err != nil {
		return engine.ServerInfo{}, err
	}
	defer c.Close(context.Background())
	var info engine.ServerInfo
	var ver string
	if err := c.QueryRow(ctx, "SHOW server_version").Scan(&ver); err != nil {
		return info, fmt.Errorf("postgres: server version: %w", err)
	}
	info.Version = "PostgreSQL " + ver
	rows, err := c.Query(ctx, "SHOW ALL")
	if err != nil {
		return info, fmt.Errorf("postgres: settings: %w", err)
	}
	info.Settings = map[string]string{}
	for rows.Next() {
		vals := rows.RawValues()
		if len(vals) >= 2 {
			info.Settings[string(vals[0])] = string(vals[1])
		}
	}
	if err := rows.Err(); err != nil {
		return info, fmt.Errorf("postgres: settings: %w", err)
	}
	if info.Settings["port"] != strconv.Itoa(int(e.config.Port)) {
		// The server listens elsewhere than where we connected: a pooler
		// (or a proxy, a port mapping) is in between.
		e.bouncerSettings(ctx, info.Settings)
	}
	return info, nil
}

// bouncerSettings adds to settings PgBouncer's own, when the target is a
// PgBouncer whose admin console (its database "pgbouncer") lets the
// target's user in (admin_users or stats_users): its version as
// "pgbouncer.version" and SHOW CONFIG as "pgbouncer.NAME". Anything else
// (no PgBouncer, a user not let in) adds nothing.
func (e *Engine) bouncerSettings(ctx context.Context, settings map[string]string) {
	cfg := e.config.Copy()
	cfg.Database = "pgbouncer"
	// The admin console speaks the simple query protocol only.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	if cfg.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.ConnectTimeout)
		defer cancel()
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return
	}
	defer c.Close(context.Background())
	var ver string
	if err := c.QueryRow(ctx, "SHOW VERSION").Scan(&ver); err != nil || !strings.HasPrefix(ver, "PgBouncer") {
		return
	}
	rows, err := c.Query(ctx, "SHOW CONFIG")
	if err != nil {
		return
	}
	defer rows.Close()
	own := map[string]string{"pgbouncer.version": ver}
	for rows.Next() {
		if vals := rows.RawValues(); len(vals) >= 2 {
			own["pgbouncer."+string(vals[0])] = string(vals[1])
		}
	}
	if rows.Err() != nil {
		return
	}
	for k, v := range own {
		settings[k] = v
	}
}

// Close does nothing: the Engine holds no connection between calls.
func (e *Engine) Close() error { return nil }

// Conn is one PostgreSQL connection. It is not safe for concurrent use.
type Conn struct {
	conn  *pgx.Conn
	pg    *pgconn.PgConn
	fast  bool
	nstmt int
	row   []any
	cols  []string // QueryText's column names, reused
	// copyOIDs caches the column types of COPY targets.
	copyOIDs map[string][]uint32

	// rolledBack is whether the last reply read by receive ended with a
	// ROLLBACK command tag.
	rolledBack bool

	// The context cancellation watch (see watch).
	watched context.Context
	stop    func() bool
	fired   chan struct{}
}

var _ engine.SQLConn = (*Conn)(nil)

// watch returns the context to hand pgx for a call made under ctx.
//
// pgx watches every call's context itself, at the cost of a channel and a
// context.AfterFunc per call. A Conn instead watches each distinct context
// once, for as long as calls keep coming under it: when it ends, the
// connection's socket gets a deadline in the past (what pgx's default
// handler does), which fails the call in flight and closes the connection.
// pgx then gets context.Background(), or ctx itself once it has ended so
// that the call fails before sending anything.
func (c *Conn) watch(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		// Not cancellable: end any earlier watch, whose context may have
		// ended since and left the socket with a deadline in the past.
		if c.stop != nil {
			c.unwatch()
		}
		return ctx
	}
	if ctx.Err() != nil {
		return ctx
	}
	if ctx != c.watched {
		c.unwatch()
		fired := make(chan struct{})
		c.watched, c.fired = ctx, fired
		nc := c.pg.Conn()
		c.stop = context.AfterFunc(ctx, func() {
			defer close(fired)
			_ = nc.SetDeadline(time.Now())
		})
	}
	return context.Background()
}

// unwatch ends the current watch; if its context had ended, the socket's
// deadline is cleared for use under another context.
func (c *Conn) unwatch() {
	if c.stop == nil {
		return
	}
	if !c.stop() {
		<-c.fired
		_ = c.pg.Conn().SetDeadline(time.Time{})
	}
	c.watched, c.stop, c.fired = nil, nil, nil
}

// Exec runs sql through the simple query protocol (it may hold several
// statements) and reads every result.
func (c *Conn) Exec(ctx context.Context, sql string) error {
	return engine.CtxErr(ctx, c.pg.Exec(c.watch(ctx), sql).Close())
}

// Begin sends BEGIN.
func (c *Conn) Begin(ctx context.Context) error { return c.simple(ctx, "BEGIN") }

// Commit sends COMMIT. A COMMIT of a failed transaction, which PostgreSQL
// answers with ROLLBACK, is an error.
func (c *Conn) Commit(ctx context.Context) error {
	if err := c.simple(ctx, "COMMIT"); err != nil {
		return err
	}
	if c.rolledBack {
		return ErrCommitRolledBack
	}
	return nil
}

// ErrCommitRolledBack is returned by Commit when the transaction had failed
// and the server rolled it back instead.
var ErrCommitRolledBack = errors.New("postgres: COMMIT of a failed transaction rolled back")

// Rollback sends ROLLBACK.
func (c *Conn) Rollback(ctx context.Context) error { return c.simple(ctx, "ROLLBACK") }

// Prepare prepares sql ('?' placeholders). In cache_statement mode the
// statement is a named server-side statement run through pgconn; in the
// other modes it runs through pgx in that mode, and nothing is sent yet.
func (c *Conn) Prepare(ctx context.Context, sql string) (engine.Stmt, error) {
	sql = Rebind(sql)
	if !c.fast {
		return &modeStmt{c: c, sql: sql}, nil
	}
	c.nstmt++
	name := "dbarena_" + strconv.Itoa(c.nstmt)
	sd, err := c.pg.Prepare(c.watch(ctx), name, sql, nil)
	if err != nil {
		return nil, engine.CtxErr(ctx, err)
	}
	return newFastStmt(c, sd), nil
}

// QueryRow runs sql with args and scans its first row into dest.
func (c *Conn) QueryRow(ctx context.Context, sql string, args []any, dest ...any) error {
	err := c.conn.QueryRow(c.watch(ctx), Rebind(sql), args...).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return engine.ErrNoRows
	}
	return engine.CtxErr(ctx, err)
}

// QueryRows runs sql with args and calls fn with each row's values,
// normalised to int64, float64, string, []byte, bool, time.Time or nil.
func (c *Conn) QueryRows(ctx context.Context, sql string, args []any, fn func(row []any) error) error {
	rows, err := c.conn.Query(c.watch(ctx), Rebind(sql), args...)
	if err != nil {
		return engine.CtxErr(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		c.row = c.row[:0]
		for _, v := range vals {
			c.row = append(c.row, normalize(v))
		}
		if err := fn(c.row); err != nil {
			return err
		}
	}
	rows.Close()
	return engine.CtxErr(ctx, rows.Err())
}

var _ engine.TextQuerier = (*Conn)(nil)

// QueryText runs sql and calls fn with every row of its results in text
// form, with the columns' names. With args (even none, a non-nil slice)
// it is one statement through the extended protocol in the connection's
// exec mode, its results asked for in text; with nil args it goes
// through the simple query protocol, which may run several statements.
func (c *Conn) QueryText(ctx context.Context, sql string, args []any, fn func(result int, cols []string, row [][]byte) error) error {
	if args == nil {
		mrr := c.pg.Exec(c.watch(ctx), sql)
		var ferr error
		for n := 0; mrr.NextResult(); n++ {
			rr := mrr.ResultReader()
			if ferr == nil {
				cols := c.colNames(rr.FieldDescriptions())
				for rr.NextRow() {
					if ferr = fn(n, cols, rr.Values()); ferr != nil {
						break
					}
				}
			}
			_, _ = rr.Close()
		}
		if err := mrr.Close(); err != nil {
			return engine.CtxErr(ctx, err)
		}
		return ferr
	}
	all := make([]any, 0, len(args)+1)
	all = append(all, pgx.QueryResultFormats{pgx.TextFormatCode})
	rows, err := c.conn.Query(c.watch(ctx), Rebind(sql), append(all, args...)...)
	if err != nil {
		return engine.CtxErr(ctx, err)
	}
	defer rows.Close()
	cols := c.colNames(rows.FieldDescriptions())
	for rows.Next() {
		if err := fn(0, cols, rows.RawValues()); err != nil {
			return err
		}
	}
	rows.Close()
	return engine.CtxErr(ctx, rows.Err())
}

// MultiResults is true: the simple query protocol returns every
// statement's result.
func (c *Conn) MultiResults() bool { return true }

// colNames returns the names of fds in a slice the Conn reuses.
func (c *Conn) colNames(fds []pgconn.FieldDescription) []string {
	c.cols = c.cols[:0]
	for _, f := range fds {
		c.cols = append(c.cols, f.Name)
	}
	return c.cols
}

// normalize maps pgx's decoded values onto the types Conn.QueryRows promises.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, int64, float64, string, []byte, bool, time.Time:
		return v
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int8:
		return int64(x)
	case int:
		return int64(x)
	case uint32:
		return int64(x)
	case float32:
		return float64(x)
	case pgtype.Numeric:
		if !x.Valid {
			return nil
		}
		if f, err := x.Float64Value(); err == nil && f.Valid {
			return f.Float64
		}
		b, _ := x.MarshalJSON()
		return string(b)
	case fmt.Stringer:
		return x.String()
	default:
		return fmt.Sprint(v)
	}
}

// BulkLoad copies src into table with COPY FROM STDIN in binary format
// (see copyBinary), in one transaction.
func (c *Conn) BulkLoad(ctx context.Context, table string, columns []string, src engine.RowSource) (int64, error) {
	// Each batch commits without waiting for its WAL flush: a load is
	// only marked complete by a later, synchronous commit, which flushes
	// the WAL of every batch before it, so no completed load can be lost.
	wctx := c.watch(ctx)
	if err := c.pg.Exec(wctx, "BEGIN; SET LOCAL synchronous_commit TO off").Close(); err != nil {
		return 0, engine.CtxErr(ctx, err)
	}
	d := Dialect{}
	quoted := make([]string, len(columns))
	for i, col := range columns {
		quoted[i] = d.QuoteIdent(col)
	}
	target := d.QuoteIdent(table) + " (" + strings.Join(quoted, ", ") + ")"
	oids, err := c.columnOIDs(wctx, target, quoted)
	if err != nil {
		_ = c.pg.Exec(wctx, "ROLLBACK").Close()
		return 0, engine.CtxErr(ctx, err)
	}
	r := newCopyBinary(src, oids, c.conn.TypeMap())
	tag, err := c.pg.CopyFrom(wctx, r, "COPY "+target+" FROM STDIN (FORMAT binary)")
	if err != nil {
		_ = c.pg.Exec(wctx, "ROLLBACK").Close()
		return 0, engine.CtxErr(ctx, err)
	}
	if err := c.pg.Exec(wctx, "COMMIT").Close(); err != nil {
		return 0, engine.CtxErr(ctx, err)
	}
	return tag.RowsAffected(), nil
}

// columnOIDs returns the type OIDs of the columns of target ("table
// (col, …)"), described once per connection and target.
func (c *Conn) columnOIDs(ctx context.Context, target string, quoted []string) ([]uint32, error) {
	if oids, ok := c.copyOIDs[target]; ok {
		return oids, nil
	}
	from := target[:strings.IndexByte(target, ' ')]
	sd, err := c.pg.Prepare(ctx, "", "SELECT "+strings.Join(quoted, ", ")+" FROM "+from, nil)
	if err != nil {
		return nil, err
	}
	oids := make([]uint32, len(sd.Fields))
	for i, f := range sd.Fields {
		oids[i] = f.DataTypeOID
	}
	if c.copyOIDs == nil {
		c.copyOIDs = map[string][]uint32{}
	}
	c.copyOIDs[target] = oids
	return oids, nil
}

// Dialect returns the engine's dialect.
func (c *Conn) Dialect() engine.SQLDialect { return Dialect{} }

// Catalog implements engine.Conn: the catalog every SQL engine shares.
func (c *Conn) Catalog() engine.Catalog { return engine.SQLCatalog{C: c} }

// Ping implements engine.Conn with SELECT 1.
func (c *Conn) Ping(ctx context.Context) error {
	var one int64
	return c.QueryRow(ctx, "SELECT 1", nil, &one)
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.unwatch()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.conn.Close(ctx)
}
