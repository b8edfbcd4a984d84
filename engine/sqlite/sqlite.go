// Package sqlite is dbarena's SQLite engine, built on modernc.org/sqlite
// (pure Go: it builds with CGO_ENABLED=0).
//
// It serves targets of the form sqlite:///absolute/path.db or
// sqlite:relative/path.db. Connections open with journal_mode=WAL,
// synchronous=NORMAL, busy_timeout=10000 and foreign_keys=ON; any URL
// parameter named like a PRAGMA (synchronous=FULL, cache_size=-65536 …)
// overrides or adds one, parameters starting with '_' go to the driver as
// they are, and txlock=deferred|immediate|exclusive chooses what Begin sends
// (BEGIN IMMEDIATE by default, so that concurrent writers wait on
// busy_timeout instead of failing to upgrade a read lock).
//
// Importing the package registers the engine (scheme "sqlite") with
// engine.Register.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sqlconn"
)

// Engine is an open SQLite database file. It is safe for concurrent use.
type Engine struct {
	path  string
	db    *sql.DB
	begin string
}

var _ engine.Engine = (*Engine)(nil)

// Open opens (creating if needed) the database file of t, and its parent
// directory.
func Open(ctx context.Context, t engine.Target, opts engine.Options) (engine.Engine, error) {
	path, dsn, begin, err := DSN(t)
	if err != nil {
		return nil, err
	}
	if dir := filepath.Dir(path); dir != "" {
		// The file is created when missing, its directory never: a typo
		// in a path must not leave directories behind.
		fi, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, &engine.TargetError{Target: t.Redacted(), Field: "path", Err: fmt.Errorf("%w: directory %s does not exist", engine.ErrBadTarget, dir)}
		case err != nil:
			return nil, &engine.TargetError{Target: t.Redacted(), Field: "path", Err: fmt.Errorf("%w: %v", engine.ErrConnect, err)}
		case !fi.IsDir():
			return nil, &engine.TargetError{Target: t.Redacted(), Field: "path", Err: fmt.Errorf("%w: %s is not a directory", engine.ErrBadTarget, dir)}
		}
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, &engine.TargetError{Target: t.Redacted(), Field: "path", Err: fmt.Errorf("%w: %v", engine.ErrConnect, err)}
	}
	db.SetMaxIdleConns(4)
	if opts.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.ConnectTimeout)
		defer cancel()
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, &engine.TargetError{Target: t.Redacted(), Field: "path", Err: fmt.Errorf("%w: %s: %v", engine.ErrConnect, path, err)}
	}
	return &Engine{path: path, db: db, begin: begin}, nil
}

// defaultPragmas are applied to every connection unless the URL overrides
// them.
var defaultPragmas = map[string]string{
	"busy_timeout": "10000",
	"journal_mode": "WAL",
	"synchronous":  "NORMAL",
	"foreign_keys": "1",
}

// DSN turns t into the database file path, the modernc.org/sqlite DSN and
// the statement Begin sends.
func DSN(t engine.Target) (path, dsn, begin string, err error) {
	bad := func(field, format string, args ...any) error {
		return &engine.TargetError{Target: t.Redacted(), Field: field, Err: fmt.Errorf("%w: "+format, append([]any{engine.ErrBadTarget}, args...)...)}
	}
	u := t.URL
	if u == nil {
		return "", "", "", bad("url", "no URL")
	}
	switch {
	case u.Opaque != "": // sqlite:relative/path
		path, err = url.PathUnescape(u.Opaque)
		if err != nil {
			return "", "", "", bad("path", "%v", err)
		}
	case u.Host != "": // sqlite://relative/path
		path = u.Host + u.Path
	default: // sqlite:///absolute/path
		path = u.Path
	}
	if path == "" {
		return "", "", "", bad("path", "no database file (want sqlite:///abs/path.db or sqlite:rel/path.db)")
	}
	if strings.ContainsRune(path, '?') {
		return "", "", "", bad("path", "'?' in a database path")
	}
	if u.Fragment != "" {
		// A '#' ends a URL's path: the rest would be dropped silently and
		// another file opened.
		return "", "", "", bad("path", "'#' in a database path (write it as %%23): %q", path+"#"+u.Fragment)
	}
	pragmas := map[string]string{}
	for k, v := range defaultPragmas {
		pragmas[k] = v
	}
	begin = "BEGIN IMMEDIATE"
	query, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "", "", "", bad("url", "parameters: %v", err)
	}
	pass := url.Values{}
	for k, vs := range query {
		v := vs[len(vs)-1]
		switch {
		case k == "txlock":
			switch strings.ToLower(v) {
			case "deferred", "immediate", "exclusive":
				begin = "BEGIN " + strings.ToUpper(v)
			default:
				return "", "", "", bad("txlock", "txlock=%q: want deferred, immediate or exclusive", v)
			}
		case strings.HasPrefix(k, "_"):
			pass[k] = vs
		default:
			if !isWord(k) || !isPragmaValue(v) {
				return "", "", "", bad(k, "PRAGMA %s=%q: want a name and a plain value", k, v)
			}
			pragmas[strings.ToLower(k)] = v
		}
	}
	names := make([]string, 0, len(pragmas))
	for k := range pragmas {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		pass.Add("_pragma", k+"("+pragmas[k]+")")
	}
	return path, path + "?" + pass.Encode(), begin, nil
}

func isWord(s string) bool {
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func isPragmaValue(s string) bool {
	for _, c := range s {
		if !(c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// Name returns "sqlite".
func (e *Engine) Name() string { return "sqlite" }

// Dialect returns the SQLite dialect.
func (e *Engine) Dialect() engine.Dialect { return Dialect{} }

// Connect opens a new connection to the file.
func (e *Engine) Connect(ctx context.Context) (engine.Conn, error) {
	sc, err := e.db.Conn(ctx)
	if err == nil {
		if err = sc.PingContext(ctx); err != nil {
			sc.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", engine.ErrConnect, e.path, err)
	}
	return &Conn{sqlconn.New(sc, e.begin, normalizeColumn)}, nil
}

// settingPragmas are the PRAGMAs ServerInfo reports.
var settingPragmas = []string{
	"journal_mode", "synchronous", "page_size", "cache_size", "busy_timeout", "foreign_keys",
	"locking_mode", "temp_store", "mmap_size", "wal_autocheckpoint",
}

// ServerInfo reports "SQLite <version>" and the settings of a connection.
func (e *Engine) ServerInfo(ctx context.Context) (engine.ServerInfo, error) {
	var info engine.ServerInfo
	sc, err := e.db.Conn(ctx)
	if err != nil {
		return info, err
	}
	defer sc.Close()
	var ver string
	if err := sc.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&ver); err != nil {
		return info, fmt.Errorf("sqlite: version: %w", err)
	}
	info.Version = "SQLite " + ver
	info.Settings = map[string]string{"path": e.path, "begin": e.begin}
	for _, p := range settingPragmas {
		var v any
		if err := sc.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v); err != nil {
			return info, fmt.Errorf("sqlite: PRAGMA %s: %w", p, err)
		}
		info.Settings[p] = fmt.Sprint(normalize(v))
	}
	return info, nil
}

// Close closes the database.
func (e *Engine) Close() error { return e.db.Close() }

// Conn is one SQLite connection: the database/sql methods every such
// engine shares (sqlconn.Conn: Exec, Prepare, Begin, Commit, Rollback,
// QueryRow, QueryRows, Ping, Close) plus SQLite's BulkLoad. Begin sends
// BEGIN IMMEDIATE (or what txlock chose); QueryRows hands out int64,
// float64, string, []byte, time.Time for columns declared DATE, DATETIME
// or TIMESTAMP, or nil. It is not safe for concurrent use.
type Conn struct {
	sqlconn.Conn
}

var _ engine.SQLConn = (*Conn)(nil)
var _ engine.TextQuerier = (*Conn)(nil)

// normalizeColumn is the sqlconn.Normalizer of SQLite: the driver's types
// decide, not the declared ones.
func normalizeColumn(_ string, v any) any { return normalize(v) }

func normalize(v any) any {
	switch x := v.(type) {
	case nil, int64, float64, string, []byte, bool, time.Time:
		return v
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	}
	return fmt.Sprint(v)
}

// maxLoadVariables bounds the parameters of one INSERT of BulkLoad:
// SQLite's SQLITE_MAX_VARIABLE_NUMBER is 32766 since 3.32, and a few
// hundred rows per statement already amortise the per-statement cost.
const maxLoadVariables = 4096

// loadRows is how many rows one INSERT of BulkLoad carries for a table of
// cols columns: as many as maxLoadVariables allows, at most 256.
func loadRows(cols int) int { return max(1, min(256, maxLoadVariables/cols)) }

// loadCacheKiB is the page cache BulkLoad gives its connection for the
// load's transaction (PRAGMA cache_size, in KiB): SQLite allocates it as
// pages are used and frees it when the setting is restored. With
// SQLite's default of 2 MB, a transaction whose new pages outgrow the
// cache spills them to the file and the statement journal before its
// commit, writing them twice: loading a TPC-E-like Load Unit took 1.6
// times as long.
const loadCacheKiB = 256 << 10

// BulkLoad inserts src's rows with multi-row prepared INSERTs (loadRows
// rows each, the last one shorter), all in one transaction, with a page
// cache of at least loadCacheKiB for the time of the load.
func (c *Conn) BulkLoad(ctx context.Context, table string, columns []string, src engine.RowSource) (n int64, err error) {
	if len(columns) == 0 {
		return 0, errors.New("sqlite: BulkLoad without columns")
	}
	restore, err := c.growCache(ctx, loadCacheKiB)
	if err != nil {
		return 0, err
	}
	defer func() {
		if rerr := restore(); rerr != nil && err == nil {
			n, err = 0, rerr
		}
	}()
	d := Dialect{}
	quoted := make([]string, len(columns))
	for i, col := range columns {
		quoted[i] = d.QuoteIdent(col)
	}
	head := "INSERT INTO " + d.QuoteIdent(table) + " (" + strings.Join(quoted, ", ") + ") VALUES "
	tuple := "(?" + strings.Repeat(", ?", len(columns)-1) + ")"
	insert := func(rows int) string {
		var b strings.Builder
		b.Grow(len(head) + rows*(len(tuple)+2))
		b.WriteString(head)
		for i := range rows {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tuple)
		}
		return b.String()
	}
	per := loadRows(len(columns))
	full, err := c.SQLConn().PrepareContext(ctx, insert(per))
	if err != nil {
		return 0, engine.CtxErr(ctx, err)
	}
	defer full.Close()
	// Writers serialise on the database file: a loader waits for the one
	// loading before it, however long that batch takes, rather than
	// failing after busy_timeout.
	for {
		err := c.Begin(ctx)
		if err == nil {
			break
		}
		if (Dialect{}).Classify(err) != engine.ClassSerialization || ctx.Err() != nil {
			return 0, err
		}
	}
	defer func() {
		if err != nil {
			_ = c.Rollback(context.WithoutCancel(ctx))
			n = 0
		}
	}()
	args := make([]any, 0, per*len(columns))
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		st := full
		if rows := len(args) / len(columns); rows < per {
			tail, err := c.SQLConn().PrepareContext(ctx, insert(rows))
			if err != nil {
				return engine.CtxErr(ctx, err)
			}
			defer tail.Close()
			st = tail
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return engine.CtxErr(ctx, err)
		}
		clear(args)
		args = args[:0]
		return nil
	}
	for src.Next() {
		vals, err := src.Values()
		if err != nil {
			return 0, err
		}
		if len(vals) != len(columns) {
			return 0, fmt.Errorf("sqlite: BulkLoad: row has %d values for %d columns", len(vals), len(columns))
		}
		args = append(args, vals...)
		n++
		if len(args) == cap(args) {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := src.Err(); err != nil {
		return 0, err
	}
	if err := flush(); err != nil {
		return 0, err
	}
	if err := c.Commit(ctx); err != nil {
		return 0, err
	}
	return n, nil
}

// growCache raises the connection's page cache to at least kib KiB and
// returns the function that restores the setting it found (one that does
// nothing when the cache was already as large).
func (c *Conn) growCache(ctx context.Context, kib int64) (restore func() error, err error) {
	var size, pageSize int64
	sc := c.SQLConn()
	if err := sc.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&size); err != nil {
		return nil, fmt.Errorf("sqlite: PRAGMA cache_size: %w", engine.CtxErr(ctx, err))
	}
	if err := sc.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		return nil, fmt.Errorf("sqlite: PRAGMA page_size: %w", engine.CtxErr(ctx, err))
	}
	have := -size // negative: KiB
	if size >= 0 {
		have = size * pageSize / 1024
	}
	if have >= kib {
		return func() error { return nil }, nil
	}
	set := func(ctx context.Context, v int64) error {
		if _, err := sc.ExecContext(ctx, "PRAGMA cache_size = "+strconv.FormatInt(v, 10)); err != nil {
			return fmt.Errorf("sqlite: PRAGMA cache_size = %d: %w", v, engine.CtxErr(ctx, err))
		}
		return nil
	}
	if err := set(ctx, -kib); err != nil {
		return nil, err
	}
	return func() error { return set(context.WithoutCancel(ctx), size) }, nil
}

// Dialect returns the engine's dialect.
func (c *Conn) Dialect() engine.SQLDialect { return Dialect{} }

// Catalog implements engine.Conn: the catalog every SQL engine shares.
func (c *Conn) Catalog() engine.Catalog { return engine.SQLCatalog{C: c} }

// Dialect is SQLite's SQL dialect. The zero value is ready to use.
type Dialect struct{}

var _ engine.SQLDialect = Dialect{}

// Name returns "sqlite".
func (Dialect) Name() string { return "sqlite" }

// Family returns engine.FamilySQL.
func (Dialect) Family() engine.Family { return engine.FamilySQL }

// Capabilities states what SQLite can do: serializable transactions
// only, no server to keep procedures on, no pipelines, foreign keys only
// where tables are created, and its work done in dbarena's own process.
func (Dialect) Capabilities() engine.Capabilities { return capabilities }

var capabilities = engine.Capabilities{
	Kind: engine.KindSQLite, Family: engine.FamilySQL,
	Transactions: true, Isolation: []string{engine.Serializable},
	TextResults: true, Upsert: engine.UpsertOnConflict, Embedded: true,
}

// IsolationSQL accepts serializable only: SQLite runs every transaction
// serializable (writers take the database lock), so there is nothing to
// set; the weaker levels do not exist.
func (Dialect) IsolationSQL(level string) (string, error) {
	if level == engine.Serializable {
		return "", nil
	}
	if _, err := engine.IsolationSQL("", level); err != nil {
		return "", err
	}
	return "", fmt.Errorf("isolation level %q: sqlite runs every transaction %s", level, engine.Serializable)
}

// Rebind returns sql unchanged: SQLite takes '?'.
func (Dialect) Rebind(sql string) string { return sql }

// QuoteIdent quotes name as an SQLite identifier.
func (Dialect) QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// ClockSQL reads the server's clock in microseconds.
func (Dialect) ClockSQL() string {
	return "SELECT CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)"
}

// TableExistsSQL counts tables of that name in the main database.
func (Dialect) TableExistsSQL() string {
	return "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
}

// ColumnsSQL lists a table's columns in order.
func (Dialect) ColumnsSQL() string {
	return "SELECT name FROM pragma_table_info(?) ORDER BY cid"
}

// Classify maps err to an engine.ErrorClass through *sqlite.Error's
// (extended) result code: SQLITE_BUSY and SQLITE_LOCKED are serialization
// failures (the transaction may be retried), SQLITE_CONSTRAINT_PRIMARYKEY,
// _UNIQUE and _ROWID unique violations.
func (Dialect) Classify(err error) engine.ErrorClass {
	if err == nil {
		return engine.ClassOther
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return engine.ClassCanceled
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		code := se.Code()
		switch code {
		case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_ROWID:
			return engine.ClassUniqueViolation
		}
		switch code & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return engine.ClassSerialization
		case sqlite3.SQLITE_INTERRUPT:
			return engine.ClassCanceled
		}
		return engine.ClassOther
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return engine.ClassConnLost
	}
	return engine.ClassOther
}
