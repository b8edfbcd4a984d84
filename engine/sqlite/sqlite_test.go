package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/schema"
)

func target(t testing.TB, rawURL string) engine.Target {
	t.Helper()
	tg, err := engine.ParseTarget(rawURL, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestDSN(t *testing.T) {
	for _, tc := range []struct {
		url, path, begin string
		pragmas          []string
	}{
		{"sqlite:///var/db/x.db", "/var/db/x.db", "BEGIN IMMEDIATE",
			[]string{"busy_timeout(10000)", "foreign_keys(1)", "journal_mode(WAL)", "synchronous(NORMAL)"}},
		{"sqlite:rel/x.db?synchronous=FULL&txlock=deferred", "rel/x.db", "BEGIN DEFERRED",
			[]string{"busy_timeout(10000)", "foreign_keys(1)", "journal_mode(WAL)", "synchronous(FULL)"}},
		{"sqlite://rel/x.db?cache_size=-65536&_time_format=sqlite", "rel/x.db", "BEGIN IMMEDIATE",
			[]string{"busy_timeout(10000)", "cache_size(-65536)", "foreign_keys(1)", "journal_mode(WAL)", "synchronous(NORMAL)"}},
	} {
		t.Run(tc.url, func(t *testing.T) {
			path, dsn, begin, err := sqlite.DSN(target(t, tc.url))
			if err != nil {
				t.Fatal(err)
			}
			if path != tc.path || begin != tc.begin {
				t.Errorf("path %q begin %q; want %q %q", path, begin, tc.path, tc.begin)
			}
			if !strings.HasPrefix(dsn, tc.path+"?") {
				t.Errorf("dsn %q", dsn)
			}
			for _, p := range tc.pragmas {
				if !strings.Contains(dsn, "_pragma="+strings.NewReplacer("(", "%28", ")", "%29").Replace(p)) {
					t.Errorf("dsn %q lacks _pragma=%s", dsn, p)
				}
			}
		})
	}
	for _, bad := range []string{"sqlite:", "sqlite:///x.db?txlock=sometimes", "sqlite:///x.db?synchronous=FULL;DROP", "sqlite:///x.db?a+b=1", "sqlite:///tmp/a#b.db"} {
		if _, _, _, err := sqlite.DSN(target(t, bad)); !errors.Is(err, engine.ErrBadTarget) {
			t.Errorf("DSN(%q) = %v, want ErrBadTarget", bad, err)
		}
	}
	// '#' written as %23 is part of the path.
	if path, _, _, err := sqlite.DSN(target(t, "sqlite:///tmp/a%23b.db")); err != nil || path != "/tmp/a#b.db" {
		t.Errorf("DSN(sqlite:///tmp/a%%23b.db) = %q, %v; want the path /tmp/a#b.db", path, err)
	}
}

func TestColumnType(t *testing.T) {
	d := sqlite.Dialect{}
	for ty, want := range map[schema.Type]string{
		schema.Int: "INTEGER", schema.BigInt: "BIGINT", schema.Serial: "INTEGER",
		schema.Char: "CHAR(8)", schema.Varchar: "VARCHAR(8)", schema.Text: "TEXT",
		schema.Float: "DOUBLE", schema.Decimal: "DECIMAL(8, 2)", schema.Timestamp: "TIMESTAMP",
		schema.Bool: "BOOLEAN", schema.JSON: "TEXT", schema.Bytes: "BLOB",
	} {
		if got := d.ColumnType(schema.Column{Type: ty, Size: 8, Scale: 2}); got != want {
			t.Errorf("ColumnType(%v) = %q, want %q", ty, got, want)
		}
	}
}

func open(t *testing.T, query string) engine.Engine {
	dir := filepath.Join(t.TempDir(), "sub", "dir")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return enginetest.Open(t, target(t, "sqlite://"+filepath.Join(dir, "t.db")+query))
}

// The database file is created when missing, its directory never: a typo
// in a path is reported, naming the directory, and leaves nothing behind.
func TestOpenMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nonexistent", "dir")
	_, err := sqlite.Open(context.Background(), target(t, "sqlite://"+filepath.Join(dir, "x.db")), engine.Options{})
	var te *engine.TargetError
	if !errors.As(err, &te) || te.Field != "path" || !errors.Is(err, engine.ErrBadTarget) || !strings.Contains(err.Error(), dir+" does not exist") {
		t.Errorf("Open = %v, want a path error naming %s", err, dir)
	}
	if _, err := os.Stat(filepath.Dir(dir)); err == nil {
		t.Errorf("Open created the missing directory")
	}
}

// TestSerialPKIsRowid checks that a schema.Serial column with a PRIMARY KEY (id) table
// constraint makes id an alias of the rowid: numbered automatically, and
// the same as rowid.
func TestSerialPKIsRowid(t *testing.T) {
	ctx := context.Background()
	e := open(t, "")
	c := enginetest.Connect(t, e)
	d := c.Dialect()
	if err := c.Exec(ctx, "CREATE TABLE s (id "+d.ColumnType(schema.Column{Type: schema.Serial})+", v TEXT, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	st, err := c.Prepare(ctx, "INSERT INTO s (v) VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := st.Exec(ctx, "x"); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Exec(ctx, "DELETE FROM s WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	var n, mismatched, maxID int64
	if err := c.QueryRow(ctx, "SELECT count(*), sum(id <> rowid), max(id) FROM s", nil, &n, &mismatched, &maxID); err != nil {
		t.Fatal(err)
	}
	if n != 2 || mismatched != 0 || maxID != 3 {
		t.Errorf("count %d, id<>rowid %d, max(id) %d; want 2, 0, 3", n, mismatched, maxID)
	}
	// A rowid alias refuses a non-integer value, which an ordinary INTEGER
	// primary key column would store as text.
	err = c.Exec(ctx, "INSERT INTO s (id, v) VALUES ('abc', 'y')")
	if err == nil {
		t.Error("id accepted text: it is not a rowid alias")
	}
}

func TestClassify(t *testing.T) {
	ctx := context.Background()
	e := open(t, "?busy_timeout=0")
	d := e.Dialect()
	c1, c2 := enginetest.Connect(t, e), enginetest.Connect(t, e)
	if err := c1.Exec(ctx, "CREATE TABLE u (id INTEGER, k INTEGER UNIQUE, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	if err := c1.Exec(ctx, "INSERT INTO u VALUES (1, 1)"); err != nil {
		t.Fatal(err)
	}
	for sql, want := range map[string]engine.ErrorClass{
		"INSERT INTO u VALUES (1, 2)":  engine.ClassUniqueViolation, // rowid alias primary key
		"INSERT INTO u VALUES (2, 1)":  engine.ClassUniqueViolation, // UNIQUE
		"INSERT INTO nowhere VALUES 1": engine.ClassOther,
	} {
		err := c1.Exec(ctx, sql)
		if got := d.Classify(err); err == nil || got != want {
			t.Errorf("%s: %v classified %v, want %v", sql, err, got, want)
		}
	}
	if err := c1.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	err := c2.Begin(ctx)
	if got := d.Classify(err); err == nil || got != engine.ClassSerialization {
		t.Errorf("second BEGIN IMMEDIATE: %v classified %v, want serialization", err, got)
	}
	if err := c1.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = c1.Exec(cctx, "SELECT 1")
	if got := d.Classify(err); err == nil || got != engine.ClassCanceled {
		t.Errorf("canceled: %v classified %v", err, got)
	}
	if got := d.Classify(fmt.Errorf("x: %w", context.DeadlineExceeded)); got != engine.ClassCanceled {
		t.Errorf("deadline classified %v", got)
	}
}

// TestConcurrentWriters checks that BEGIN IMMEDIATE and busy_timeout let
// several writers run transactions without SQLITE_BUSY.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	e := open(t, "")
	c := enginetest.Connect(t, e)
	if err := c.Exec(ctx, "CREATE TABLE w (id INTEGER, n INTEGER NOT NULL, PRIMARY KEY (id)); INSERT INTO w VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	const workers, txs = 4, 50
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wc := enginetest.Connect(t, e)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sel, err := wc.Prepare(ctx, "SELECT n FROM w WHERE id = 1")
			if err != nil {
				t.Error(err)
				return
			}
			upd, err := wc.Prepare(ctx, "UPDATE w SET n = ? WHERE id = 1")
			if err != nil {
				t.Error(err)
				return
			}
			for j := 0; j < txs; j++ {
				var n int64
				if err := wc.Begin(ctx); err != nil {
					t.Error(err)
					return
				}
				if err := sel.QueryRow(ctx, nil, &n); err != nil {
					t.Error(err)
					return
				}
				if _, err := upd.Exec(ctx, n+1); err != nil {
					t.Error(err)
					return
				}
				if err := wc.Commit(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var n int64
	if err := c.QueryRow(ctx, "SELECT n FROM w WHERE id = 1", nil, &n); err != nil || n != workers*txs {
		t.Errorf("n = %d, %v; want %d", n, err, workers*txs)
	}
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, testdb.SQLite(t), enginetest.Config{Table: "conf_sqlite", Isolations: map[string]string{engine.Serializable: ""}})
}

func TestServerInfoPragmas(t *testing.T) {
	e := open(t, "?synchronous=FULL")
	info, err := e.ServerInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"journal_mode": "wal", "synchronous": "2", "busy_timeout": "10000", "foreign_keys": "1"} {
		if got := info.Settings[k]; got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if !strings.HasPrefix(info.Version, "SQLite 3.") {
		t.Errorf("version %q", info.Version)
	}
}

// rows is an engine.RowSource over generated rows (id, id*id, "v<id>"),
// failing at the row numbered bad (never when bad is 0).
type rows struct {
	n, i, bad int64
	vals      []any
}

func (r *rows) Next() bool { r.i++; return r.i <= r.n }
func (r *rows) Values() ([]any, error) {
	if r.i == r.bad {
		return []any{r.i, r.i * r.i}, nil // one value short
	}
	r.vals = append(r.vals[:0], r.i, r.i*r.i, fmt.Sprint("v", r.i))
	return r.vals, nil
}
func (r *rows) Err() error { return nil }

// BulkLoad sends up to 256 rows per INSERT: a count that is not a multiple
// of the rows per statement loads every row once, in order and intact,
// and a bad row rolls back the whole load.
func TestBulkLoadRows(t *testing.T) {
	ctx := context.Background()
	e := open(t, "")
	c := enginetest.Connect(t, e)
	if err := c.Exec(ctx, "CREATE TABLE b (id INTEGER PRIMARY KEY, sq INTEGER, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	for _, total := range []int64{0, 1, 256, 257, 3001} {
		if err := c.Exec(ctx, "DELETE FROM b"); err != nil {
			t.Fatal(err)
		}
		n, err := c.BulkLoad(ctx, "b", []string{"id", "sq", "v"}, &rows{n: total})
		if err != nil || n != total {
			t.Fatalf("%d rows: BulkLoad = %d, %v", total, n, err)
		}
		var count, bad int64
		if err := c.QueryRow(ctx, "SELECT count(*), coalesce(sum(sq <> id*id OR v <> 'v' || id), 0) FROM b", nil, &count, &bad); err != nil {
			t.Fatal(err)
		}
		if count != total || bad != 0 {
			t.Errorf("%d rows: table holds %d, %d of them wrong", total, count, bad)
		}
	}
	if err := c.Exec(ctx, "DELETE FROM b"); err != nil {
		t.Fatal(err)
	}
	if n, err := c.BulkLoad(ctx, "b", []string{"id", "sq", "v"}, &rows{n: 3000, bad: 2000}); err == nil || n != 0 {
		t.Fatalf("a short row: BulkLoad = %d, %v; want an error", n, err)
	}
	var count int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM b", nil, &count); err != nil || count != 0 {
		t.Errorf("after a failed load the table holds %d rows (%v), want none", count, err)
	}
}

// cacheProbe is a row source that reads its connection's PRAGMA
// cache_size when BulkLoad asks for the first row.
type cacheProbe struct {
	rows
	c      engine.SQLConn
	during int64
	err    error
}

func (p *cacheProbe) Values() ([]any, error) {
	if p.i == 1 {
		p.err = p.c.QueryRow(context.Background(), "PRAGMA cache_size", nil, &p.during)
	}
	return p.rows.Values()
}

// BulkLoad loads with a page cache of at least 256 MiB (a smaller one
// spills the transaction's pages to disk before its commit) and gives
// the connection back with the cache_size it had, whether the load
// succeeds or fails; a cache already that large is left alone.
func TestBulkLoadCacheSize(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, query  string
		before, load int64
	}{
		{"default", "", -2000, -262144},                           // SQLite's default, 2 MB
		{"pages", "?cache_size=100", 100, -262144},                // pages
		{"larger", "?cache_size=-400000", -400000, -400000},       // already larger: kept
		{"larger_in_pages", "?cache_size=100000", 100000, 100000}, // 100000 pages of 4 KiB: kept
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := enginetest.Connect(t, open(t, tc.query))
			if err := c.Exec(ctx, "CREATE TABLE b (id INTEGER PRIMARY KEY, sq INTEGER, v TEXT)"); err != nil {
				t.Fatal(err)
			}
			size := func() int64 {
				var v int64
				if err := c.QueryRow(ctx, "PRAGMA cache_size", nil, &v); err != nil {
					t.Fatal(err)
				}
				return v
			}
			if got := size(); got != tc.before {
				t.Fatalf("cache_size before the load = %d, want %d", got, tc.before)
			}
			for _, bad := range []int64{0, 700} {
				p := &cacheProbe{rows: rows{n: 1000, bad: bad}, c: c}
				n, err := c.BulkLoad(ctx, "b", []string{"id", "sq", "v"}, p)
				if (bad == 0) != (err == nil) || bad == 0 && n != 1000 {
					t.Fatalf("bad row %d: BulkLoad = %d, %v", bad, n, err)
				}
				if p.err != nil || p.during != tc.load {
					t.Errorf("bad row %d: cache_size during the load = %d (%v), want %d", bad, p.during, p.err, tc.load)
				}
				if got := size(); got != tc.before {
					t.Errorf("bad row %d: cache_size after the load = %d, want %d as before", bad, got, tc.before)
				}
			}
		})
	}
}

// A table created again from the CREATE TABLE text of one dbarena made
// (marker and all) after that was dropped, or made beside it and renamed
// into its place, has another identity; renaming the table away and back
// and building an index on it keep it.
func TestIdentityOfCopies(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.SQLite(t))
	c, err := engine.ConnectSQL(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cat := c.Catalog()
	exec := func(stmts ...string) {
		t.Helper()
		for _, s := range stmts {
			if err := c.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	// Tables before and after it, as a prepare leaves them.
	exec("CREATE TABLE before (id INTEGER PRIMARY KEY)")
	if err := cat.CreateTable(ctx, &schema.Table{Name: "t", Columns: []schema.Column{{Name: "id", Type: schema.BigInt}, {Name: "v", Type: schema.Text}},
		PrimaryKey: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
	exec("CREATE TABLE after (id INTEGER PRIMARY KEY)",
		"WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 5000) INSERT INTO t SELECT i, hex(randomblob(40)) FROM r")
	id, err := cat.Identity(ctx, "t")
	if err != nil || !strings.HasPrefix(id, "dbarena-id:") {
		t.Fatalf("Identity = %q, %v", id, err)
	}
	same := func(what string) {
		t.Helper()
		now, err := cat.Identity(ctx, "t")
		if v := engine.CompareIdentity(id, now, false); err != nil || v.Other != "" || v.Unconfirmed != "" {
			t.Errorf("%s: identity %q, was %q (%+v, %v); want the same", what, now, id, v, err)
		}
	}
	other := func(what string) {
		t.Helper()
		now, err := cat.Identity(ctx, "t")
		if v := engine.CompareIdentity(id, now, false); err != nil || v.Other == "" {
			t.Errorf("%s: identity %q, was %q (%+v, %v); want another", what, now, id, v, err)
		}
	}
	var ddl string
	if err := c.QueryRow(ctx, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 't'", nil, &ddl); err != nil {
		t.Fatal(err)
	}
	exec("CREATE INDEX t_v ON t (v)", "ALTER TABLE t RENAME TO t_away", "ALTER TABLE t_away RENAME TO t")
	same("after an index build and renames")

	exec(strings.Replace(ddl, "CREATE TABLE t ", "CREATE TABLE t_copy ", 1), "DROP TABLE t", "ALTER TABLE t_copy RENAME TO t")
	other("a copy renamed into its place")

	exec("DROP TABLE t", ddl)
	other("created again from its text after the drop")
}
