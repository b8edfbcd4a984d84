// Package enginetest is the conformance suite every dbarena engine passes.
// Each engine's integration test calls Run with a target that reaches a real
// server, from internal/testdb; the suite needs no mock of any database.
package enginetest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
)

// Config tells Run what the engine under test can be asked.
type Config struct {
	// Table prefixes the tables the suite creates (targets that share a
	// database, like PostgreSQL direct and through PgBouncer, need distinct
	// prefixes).
	Table string
	// Network is true for client/server engines: the suite then checks a
	// wrong password and an unreachable host.
	Network bool
	// PipelineSync is true when a batch goes in one round trip with its
	// synchronization points (Batch.Sync) as the server's: the suite then
	// checks that a server error skips the rest of its segment only.
	PipelineSync bool
	// Deadlock runs two connections into a real deadlock.
	Deadlock bool
	// LoginNoAuthCode is true when the server reports a rejected login
	// without a code that tells it from other failures (PgBouncer answers
	// every login failure with SQLSTATE 08P01): a wrong password must then
	// give ErrConnect, not necessarily ErrAuth.
	LoginNoAuthCode bool
	// SleepSQL is a statement that takes at least 5 seconds (e.g. "SELECT
	// pg_sleep(5)"); when set the suite cancels it midway.
	SleepSQL string
	// IsolationSQL reads the session's isolation level back (e.g. "SHOW
	// transaction_isolation"); Isolations maps each level the engine has
	// to what IsolationSQL then returns. Levels not in the map must be
	// refused with an error naming them.
	IsolationSQL string
	Isolations   map[string]string
	// MultiStatement is true when QueryText without arguments runs
	// several statements separated by semicolons in one call and
	// returns each one's rows (TextQuerier.MultiResults).
	MultiStatement bool
}

// Open opens t with a 10-second connect timeout and closes it at the end
// of the test.
func Open(t testing.TB, tg engine.Target) engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), tg, engine.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("open %s: %v", tg, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// Connect opens a connection of e, an SQL engine, closed at the end of the
// test.
func Connect(t testing.TB, e engine.Engine) engine.SQLConn {
	t.Helper()
	c, err := e.Connect(context.Background())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	sc, err := engine.SQL(c)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return sc
}

// Dialect is e's SQLDialect; the test fails when e does not speak SQL.
func Dialect(t testing.TB, e engine.Engine) engine.SQLDialect {
	t.Helper()
	d, ok := e.Dialect().(engine.SQLDialect)
	if !ok {
		t.Fatalf("%s: not an SQL dialect", e.Name())
	}
	return d
}

// Run runs the conformance suite against tg.
func Run(t *testing.T, tg engine.Target, cfg Config) {
	ctx := context.Background()
	e := Open(t, tg)
	if e.Name() != tg.URL.Scheme {
		t.Errorf("Name() = %q, want %q", e.Name(), tg.URL.Scheme)
	}
	d := Dialect(t, e)
	if d.Name() != e.Name() {
		t.Errorf("Dialect().Name() = %q, want %q", d.Name(), e.Name())
	}
	c := Connect(t, e)
	tbl := cfg.Table + "_t"
	bulk := cfg.Table + "_bulk"
	mustExec(t, c, "DROP TABLE IF EXISTS "+d.QuoteIdent(tbl))
	mustExec(t, c, "DROP TABLE IF EXISTS "+d.QuoteIdent(bulk))
	ct := func(ty schema.Type, size, scale int) string {
		return d.ColumnType(schema.Column{Type: ty, Size: size, Scale: scale})
	}
	mustExec(t, c, fmt.Sprintf("CREATE TABLE %s (id %s, k %s NOT NULL, c %s, f %s, d %s, ts %s, b %s, PRIMARY KEY (id))",
		d.QuoteIdent(tbl), ct(schema.Serial, 0, 0), ct(schema.Int, 0, 0),
		ct(schema.Varchar, 100, 0), ct(schema.Float, 0, 0),
		ct(schema.Decimal, 10, 2), ct(schema.Timestamp, 0, 0), ct(schema.Bool, 0, 0)))
	mustExec(t, c, fmt.Sprintf("CREATE TABLE %s (id %s NOT NULL, k %s NOT NULL, c %s NOT NULL, PRIMARY KEY (id))",
		d.QuoteIdent(bulk), ct(schema.BigInt, 0, 0), ct(schema.Int, 0, 0), ct(schema.Char, 20, 0)))
	t.Cleanup(func() {
		c, err := e.Connect(ctx)
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.Catalog().DropTable(ctx, tbl)
		_ = c.Catalog().DropTable(ctx, bulk)
	})
	ts := time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC)

	t.Run("catalog", func(t *testing.T) {
		var n int64
		if err := c.QueryRow(ctx, d.TableExistsSQL(), []any{tbl}, &n); err != nil || n == 0 {
			t.Errorf("TableExistsSQL(%s) = %d, %v; want > 0", tbl, n, err)
		}
		if err := c.QueryRow(ctx, d.TableExistsSQL(), []any{cfg.Table + "_none"}, &n); err != nil || n != 0 {
			t.Errorf("TableExistsSQL(missing) = %d, %v; want 0", n, err)
		}
		var cols []string
		err := c.QueryRows(ctx, d.ColumnsSQL(), []any{tbl}, func(row []any) error {
			s, ok := row[0].(string)
			if !ok {
				return fmt.Errorf("column name is %T, want string", row[0])
			}
			cols = append(cols, strings.ToLower(s))
			return nil
		})
		if got := strings.Join(cols, ","); err != nil || got != "id,k,c,f,d,ts,b" {
			t.Errorf("ColumnsSQL = %q, %v; want id,k,c,f,d,ts,b", got, err)
		}
	})

	t.Run("stmt", func(t *testing.T) {
		ins, err := c.Prepare(ctx, fmt.Sprintf("INSERT INTO %s (k, c, f, d, ts, b) VALUES (?, ?, ?, ?, ?, ?)", d.QuoteIdent(tbl)))
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 3; i++ {
			n, err := ins.Exec(ctx, i*10, fmt.Sprintf("row '?' %d", i), float64(i)+0.5, 12.25, ts, i%2 == 1)
			if err != nil || n != 1 {
				t.Fatalf("insert %d: %d rows, %v", i, n, err)
			}
		}
		if n, err := ins.Exec(ctx, int64(40), nil, nil, nil, nil, nil); err != nil || n != 1 {
			t.Fatalf("insert NULLs: %d rows, %v", n, err)
		}
		sel, err := c.Prepare(ctx, fmt.Sprintf("SELECT c FROM %s WHERE k >= ? AND c <> '?'", d.QuoteIdent(tbl)))
		if err != nil {
			t.Fatal(err)
		}
		if n, err := sel.Query(ctx, 20); err != nil || n != 2 {
			t.Errorf("Query(k >= 20) = %d, %v; want 2", n, err)
		}
		if n, err := sel.Query(ctx, int64(1000)); err != nil || n != 0 {
			t.Errorf("Query(k >= 1000) = %d, %v; want 0", n, err)
		}
		one, err := c.Prepare(ctx, fmt.Sprintf("SELECT id, c, f, b, ts FROM %s WHERE k = ?", d.QuoteIdent(tbl)))
		if err != nil {
			t.Fatal(err)
		}
		var (
			id   int64
			s    string
			f    float64
			b    bool
			when time.Time
		)
		if err := one.QueryRow(ctx, []any{20}, &id, &s, &f, &b, &when); err != nil {
			t.Fatalf("QueryRow: %v", err)
		}
		if id != 2 || s != "row '?' 2" || f != 2.5 || b || !when.Equal(ts) {
			t.Errorf("QueryRow = %d %q %v %v %v; want 2 \"row '?' 2\" 2.5 false %v", id, s, f, b, when, ts)
		}
		if err := one.QueryRow(ctx, []any{99}, &id, &s, &f, &b, &when); !errors.Is(err, engine.ErrNoRows) {
			t.Errorf("QueryRow(no row) = %v, want ErrNoRows", err)
		}
		each, err := c.Prepare(ctx, fmt.Sprintf("SELECT k, d FROM %s WHERE k <= ? ORDER BY k", d.QuoteIdent(tbl)))
		if err != nil {
			t.Fatal(err)
		}
		var k int64
		var dec float64
		var got []string
		n, err := each.QueryEach(ctx, []any{30}, []any{&k, &dec}, func() error {
			got = append(got, fmt.Sprintf("%d:%v", k, dec))
			return nil
		})
		if want := "10:12.25 20:12.25 30:12.25"; err != nil || n != 3 || strings.Join(got, " ") != want {
			t.Errorf("QueryEach = %d %q, %v; want 3 %q", n, strings.Join(got, " "), err, want)
		}
		stop := errors.New("stop")
		n, err = each.QueryEach(ctx, []any{30}, []any{&k, &dec}, func() error { return stop })
		if !errors.Is(err, stop) || n != 1 {
			t.Errorf("QueryEach stopped by fn = %d, %v; want 1, stop", n, err)
		}
		// The connection is usable after fn stopped the reading.
		if err := one.QueryRow(ctx, []any{20}, &id, &s, &f, &b, &when); err != nil {
			t.Errorf("QueryRow after a stopped QueryEach: %v", err)
		}
		upd, err := c.Prepare(ctx, fmt.Sprintf("UPDATE %s SET f = f + 1 WHERE k <= ?", d.QuoteIdent(tbl)))
		if err != nil {
			t.Fatal(err)
		}
		if n, err := upd.Exec(ctx, 20); err != nil || n != 2 {
			t.Errorf("update: %d rows, %v; want 2", n, err)
		}
		// Prepared statements survive other traffic on the connection.
		for i := 0; i < 3; i++ {
			if n, err := sel.Query(ctx, 20); err != nil || n != 2 {
				t.Errorf("Query again = %d, %v", n, err)
			}
		}
	})

	t.Run("query_rows", func(t *testing.T) {
		var rows [][]any
		err := c.QueryRows(ctx, fmt.Sprintf("SELECT id, k, c, f, d, ts, b FROM %s WHERE k >= ? ORDER BY id", d.QuoteIdent(tbl)), []any{30}, func(row []any) error {
			rows = append(rows, append([]any(nil), row...))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 {
			t.Fatalf("got %d rows, want 2", len(rows))
		}
		r := rows[0]
		if r[0] != int64(3) || r[1] != int64(30) || r[2] != "row '?' 3" || r[3] != 3.5 {
			t.Errorf("row = %#v; want int64 3, int64 30, \"row '?' 3\", 3.5", r)
		}
		switch v := r[4].(type) {
		case float64:
			if v != 12.25 {
				t.Errorf("decimal = %v", v)
			}
		case string:
			if v != "12.25" {
				t.Errorf("decimal = %q", v)
			}
		default:
			t.Errorf("decimal is %T, want float64 or string", r[4])
		}
		if w, ok := r[5].(time.Time); !ok || !w.Equal(ts) {
			t.Errorf("timestamp = %#v, want %v", r[5], ts)
		}
		if r[6] != true && r[6] != int64(1) {
			t.Errorf("bool = %#v, want true or int64 1", r[6])
		}
		for i, v := range rows[1][2:] {
			if v != nil {
				t.Errorf("NULL column %d = %#v, want nil", i+2, v)
			}
		}
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+d.QuoteIdent(tbl)+" WHERE c = ?", []any{"nothing"}, &n); err != nil || n != 0 {
			t.Errorf("QueryRow count = %d, %v", n, err)
		}
		var s string
		if err := c.QueryRow(ctx, "SELECT c FROM "+d.QuoteIdent(tbl)+" WHERE k = ?", []any{12345}, &s); !errors.Is(err, engine.ErrNoRows) {
			t.Errorf("Conn.QueryRow(no row) = %v, want ErrNoRows", err)
		}
	})

	t.Run("capabilities", func(t *testing.T) {
		// What the dialect states is what the connection does.
		caps := d.Capabilities()
		_, batches := c.(engine.Batcher)
		_, text := c.(engine.TextQuerier)
		_, rejoins := c.(engine.Rejoiner)
		if caps.Pipelines != batches || caps.TextResults != text || caps.Rejoins != rejoins {
			t.Errorf("%s states pipelines %v, text results %v, rejoins %v; its connection %T: %v, %v, %v",
				caps.Kind, caps.Pipelines, caps.TextResults, caps.Rejoins, c, batches, text, rejoins)
		}
		if tq, ok := c.(engine.TextQuerier); ok && tq.MultiResults() != caps.MultiResults {
			t.Errorf("%s states multiple results %v, its connection's MultiResults() = %v", caps.Kind, caps.MultiResults, tq.MultiResults())
		}
		if string(caps.Kind) != d.Name() || caps.Family != d.Family() {
			t.Errorf("capabilities kind %q family %q, dialect %q %q", caps.Kind, caps.Family, d.Name(), d.Family())
		}
		iso := Connect(t, e) // a connection of its own, left at the level set last
		for _, level := range []string{engine.ReadCommitted, engine.RepeatableRead, engine.Serializable} {
			err := engine.SetIsolation(ctx, iso, level)
			if (err == nil) != caps.Isolates(level) {
				t.Errorf("SetIsolation(%s) = %v, but the capabilities list %q", level, err, caps.Isolation)
			}
		}
	})

	t.Run("query_text", func(t *testing.T) {
		if _, ok := c.(engine.TextQuerier); !ok {
			t.Fatalf("%T is not an engine.TextQuerier", c)
		}
		type row struct {
			result int
			text   string
		}
		collect := func(sql string, args []any) ([]row, []string, error) {
			var got []row
			var names []string
			err := engine.QueryText(ctx, c, sql, args, func(result int, cols []string, vals [][]byte) error {
				names = append(names[:0], cols...)
				var parts []string
				for _, v := range vals {
					if v == nil {
						parts = append(parts, "NULL")
					} else {
						parts = append(parts, "'"+string(v)+"'")
					}
				}
				got = append(got, row{result, strings.Join(parts, ",")})
				return nil
			})
			return got, names, err
		}
		q := fmt.Sprintf("SELECT k AS kk, c, id FROM %s WHERE k >= ? ORDER BY id", d.QuoteIdent(tbl))
		got, names, err := collect(q, []any{30})
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.ToLower(strings.Join(names, ",")); n != "kk,c,id" {
			t.Errorf("columns = %q, want kk,c,id", n)
		}
		if want := []row{{0, "'30','row '?' 3','3'"}, {0, "'40',NULL,'4'"}}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("rows = %v, want %v", got, want)
		}
		// Without arguments; an empty string is not NULL; no row, no call.
		got, names, err = collect("SELECT 7 AS seven, '' AS empty, NULL AS absent", nil)
		if err != nil || fmt.Sprint(got) != fmt.Sprint([]row{{0, "'7','',NULL"}}) || strings.Join(names, ",") != "seven,empty,absent" {
			t.Errorf("literal row = %v %v, %v; want [{0 '7','',NULL}] seven,empty,absent", got, names, err)
		}
		got, _, err = collect(fmt.Sprintf("SELECT k FROM %s WHERE k > ?", d.QuoteIdent(tbl)), []any{1000})
		if err != nil || len(got) != 0 {
			t.Errorf("no row = %v, %v; want none", got, err)
		}
		stop := errors.New("stop")
		if err := engine.QueryText(ctx, c, q, []any{0}, func(int, []string, [][]byte) error { return stop }); !errors.Is(err, stop) {
			t.Errorf("QueryText stopped by fn = %v, want stop", err)
		}
		if _, _, err := collect("SELECT * FROM "+d.QuoteIdent(cfg.Table+"_none"), nil); err == nil {
			t.Error("QueryText of a missing table: no error")
		}
		// The connection is usable afterwards.
		if got, _, err := collect(q, []any{40}); err != nil || len(got) != 1 {
			t.Errorf("QueryText after errors = %v, %v", got, err)
		}
		if tq := c.(engine.TextQuerier); tq.MultiResults() != cfg.MultiStatement {
			t.Errorf("MultiResults() = %v, want %v", tq.MultiResults(), cfg.MultiStatement)
		}
		if cfg.MultiStatement {
			got, _, err := collect("SELECT 1 AS a; SELECT 2 AS b UNION ALL SELECT 3; SELECT 4 AS c WHERE false", nil)
			if want := []row{{0, "'1'"}, {1, "'2'"}, {1, "'3'"}}; err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("several statements = %v, %v; want %v", got, err, want)
			}
		}
	})

	t.Run("bulk_load", func(t *testing.T) {
		const rows = 10000
		src := &seqSource{n: rows}
		n, err := c.BulkLoad(ctx, bulk, []string{"id", "k", "c"}, src)
		if err != nil || n != rows {
			t.Fatalf("BulkLoad = %d, %v; want %d", n, err, rows)
		}
		var count, sum int64
		if err := c.QueryRow(ctx, "SELECT count(*), sum(k) FROM "+d.QuoteIdent(bulk), nil, &count, &sum); err != nil {
			t.Fatal(err)
		}
		if count != rows || sum != rows*(rows+1)/2*3 {
			t.Errorf("after BulkLoad: count %d sum %d; want %d %d", count, sum, rows, rows*(rows+1)/2*3)
		}
		var s string
		if err := c.QueryRow(ctx, "SELECT c FROM "+d.QuoteIdent(bulk)+" WHERE id = ?", []any{int64(777)}, &s); err != nil || strings.TrimSpace(s) != "c-777" {
			t.Errorf("row 777: c = %q, %v", s, err)
		}
		// Awkward text survives the load byte for byte.
		awkward := []string{"tab\there", "new\nline", "cr\rhere", `back\slash`, `\N`, "ünïcødé", "", "end\\"}
		var aw []any
		for i, s := range awkward {
			aw = append(aw, []any{int64(rows + 100 + i), int64(0), s}...)
		}
		if _, err := c.BulkLoad(ctx, bulk, []string{"id", "k", "c"}, &rowsSource{vals: aw, ncol: 3}); err != nil {
			t.Fatalf("BulkLoad of awkward text: %v", err)
		}
		for i, want := range awkward {
			var got string
			if err := c.QueryRow(ctx, "SELECT c FROM "+d.QuoteIdent(bulk)+" WHERE id = ?", []any{int64(rows + 100 + i)}, &got); err != nil {
				t.Fatal(err)
			}
			if strings.TrimRight(got, " ") != want {
				t.Errorf("loaded %q, read back %q", want, got)
			}
		}
		if err := c.Exec(ctx, "DELETE FROM "+d.QuoteIdent(bulk)+" WHERE k = 0"); err != nil {
			t.Fatal(err)
		}
		// A source error aborts the load.
		if _, err := c.BulkLoad(ctx, bulk, []string{"id", "k", "c"}, &seqSource{n: 10, start: rows + 1, fail: 5}); err == nil {
			t.Errorf("BulkLoad with a failing source succeeded")
		}
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+d.QuoteIdent(bulk), nil, &count); err != nil || count != rows {
			t.Errorf("after failed BulkLoad: count %d, %v; want %d", count, err, rows)
		}
	})

	t.Run("transactions", func(t *testing.T) {
		countRows := func() int64 {
			var n int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM "+d.QuoteIdent(tbl), nil, &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := countRows()
		ins, err := c.Prepare(ctx, fmt.Sprintf("INSERT INTO %s (k, c) VALUES (?, ?)", d.QuoteIdent(tbl)))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := ins.Exec(ctx, 100, "rolled back"); err != nil {
			t.Fatal(err)
		}
		if err := c.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if got := countRows(); got != before {
			t.Errorf("after Rollback: %d rows, want %d", got, before)
		}
		if err := c.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := ins.Exec(ctx, 101, "committed"); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if got := countRows(); got != before+1 {
			t.Errorf("after Commit: %d rows, want %d", got, before+1)
		}
	})

	t.Run("batch", func(t *testing.T) { testBatch(t, c, tbl, cfg.PipelineSync) })
	t.Run("isolation", func(t *testing.T) { testIsolation(t, e, cfg) })

	t.Run("unique_violation", func(t *testing.T) {
		st, err := c.Prepare(ctx, fmt.Sprintf("INSERT INTO %s (id, k, c) VALUES (?, ?, ?)", d.QuoteIdent(bulk)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Exec(ctx, int64(1), 1, "dup")
		if err == nil {
			t.Fatal("duplicate insert succeeded")
		}
		if cl := d.Classify(err); cl != engine.ClassUniqueViolation {
			t.Errorf("Classify(%v) = %v, want unique_violation", err, cl)
		}
		err = c.Exec(ctx, "INSERT INTO "+d.QuoteIdent(bulk)+" (id, k, c) VALUES (2, 2, 'dup')")
		if cl := d.Classify(err); cl != engine.ClassUniqueViolation {
			t.Errorf("Exec: Classify(%v) = %v, want unique_violation", err, cl)
		}
		// The connection still works.
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+d.QuoteIdent(bulk), nil, &n); err != nil {
			t.Errorf("after error: %v", err)
		}
	})

	t.Run("canceled", func(t *testing.T) {
		c := Connect(t, e)
		st, err := c.Prepare(ctx, "SELECT k FROM "+d.QuoteIdent(tbl)+" WHERE k = ?")
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		if _, err := st.Query(cctx, 10); err != nil {
			t.Fatal(err)
		}
		cancel()
		_, err = st.Query(cctx, 10)
		if cl := d.Classify(err); err == nil || cl != engine.ClassCanceled {
			t.Errorf("Query under a canceled context: %v, class %v; want canceled", err, cl)
		}
		if cfg.SleepSQL == "" {
			return
		}
		c2 := Connect(t, e)
		tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		err = c2.Exec(tctx, cfg.SleepSQL)
		if cl := d.Classify(err); err == nil || cl != engine.ClassCanceled {
			t.Errorf("%s with a 300ms deadline: %v, class %v; want canceled", cfg.SleepSQL, err, cl)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("canceling took %v", el)
		}
	})

	if cfg.Deadlock {
		t.Run("deadlock", func(t *testing.T) { testDeadlock(t, e, bulk) })
	}

	t.Run("server_info", func(t *testing.T) {
		info, err := e.ServerInfo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Version == "" || len(info.Settings) < 5 {
			t.Errorf("ServerInfo = %q with %d settings", info.Version, len(info.Settings))
		}
		t.Logf("%s, %d settings", info.Version, len(info.Settings))
	})

	if cfg.Network {
		t.Run("wrong_password", func(t *testing.T) { testWrongPassword(t, tg, !cfg.LoginNoAuthCode) })
		// 127.0.0.1:1 refuses at once; 192.0.2.1 (TEST-NET-1) never answers.
		for _, host := range []string{"127.0.0.1:1", "192.0.2.1:5"} {
			t.Run("unreachable/"+host, func(t *testing.T) { testUnreachable(t, tg, host) })
		}
	}
}

func mustExec(t testing.TB, c engine.SQLConn, sql string) {
	t.Helper()
	if err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// seqSource yields (i, 3i, "c-i") for i in [start, start+n); with fail > 0
// its fail-th row is an error.
type seqSource struct {
	n, start, fail, i int
	row               []any
}

func (s *seqSource) Next() bool { s.i++; return s.i <= s.n }

func (s *seqSource) Values() ([]any, error) {
	if s.fail > 0 && s.i == s.fail {
		return nil, errors.New("source failed")
	}
	if s.start == 0 {
		s.start = 1
	}
	id := s.start + s.i - 1
	s.row = append(s.row[:0], int64(id), id*3, fmt.Sprintf("c-%d", id))
	return s.row, nil
}

func (s *seqSource) Err() error { return nil }

func testDeadlock(t *testing.T, e engine.Engine, table string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := Dialect(t, e)
	c1, c2 := Connect(t, e), Connect(t, e)
	upd := "UPDATE " + d.QuoteIdent(table) + " SET k = k + 1 WHERE id = ?"
	s1, err := c1.Prepare(ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := c2.Prepare(ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []engine.SQLConn{c1, c2} {
		if err := c.Begin(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s1.Exec(ctx, int64(101)); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Exec(ctx, int64(102)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, errs[0] = s1.Exec(ctx, int64(102))
		if errs[0] != nil {
			_ = c1.Rollback(ctx)
		}
	}()
	go func() {
		defer wg.Done()
		time.Sleep(100 * time.Millisecond) // let c1 wait first
		_, errs[1] = s2.Exec(ctx, int64(101))
		if errs[1] != nil {
			_ = c2.Rollback(ctx)
		}
	}()
	wg.Wait()
	_ = c1.Rollback(ctx)
	_ = c2.Rollback(ctx)
	deadlocks := 0
	for i, err := range errs {
		if err == nil {
			continue
		}
		if cl := d.Classify(err); cl == engine.ClassDeadlock {
			deadlocks++
		} else {
			t.Errorf("conn %d: %v classified %v, want deadlock", i+1, err, cl)
		}
	}
	if deadlocks != 1 {
		t.Errorf("%d deadlock errors (%v), want 1", deadlocks, errs)
	}
}

func testWrongPassword(t *testing.T, tg engine.Target, wantAuth bool) {
	bad := tg
	pw := fmt.Sprintf("wrong-pw-%d", time.Now().UnixNano())
	bad.Password = engine.NewSecret(pw)
	start := time.Now()
	e, err := engine.Open(context.Background(), bad, engine.Options{ConnectTimeout: 10 * time.Second})
	if err == nil {
		// An engine may defer the login to Connect.
		defer e.Close()
		var c engine.Conn
		c, err = e.Connect(context.Background())
		if err == nil {
			c.Close()
			t.Fatal("login with a wrong password succeeded")
		}
	}
	msg := err.Error()
	if wantAuth && !errors.Is(err, engine.ErrAuth) {
		t.Errorf("wrong password: %v (%T) does not wrap ErrAuth", err, err)
	}
	if !errors.Is(err, engine.ErrConnect) {
		t.Errorf("wrong password: %v does not wrap ErrConnect", err)
	}
	if strings.Contains(msg, pw) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), pw) {
		t.Errorf("error reveals the password: %s", msg)
	}
	if u := tg.Username(); !strings.Contains(msg, u) {
		t.Errorf("error %q does not name user %q", msg, u)
	}
	if h := tg.URL.Hostname(); !strings.Contains(msg, h) {
		t.Errorf("error %q does not name host %q", msg, h)
	}
	t.Logf("%v (after %v)", err, time.Since(start).Round(time.Millisecond))
}

func testUnreachable(t *testing.T, tg engine.Target, host string) {
	u := *tg.URL
	u.Host = host
	q := u.Query()
	for _, k := range []string{"host", "socket", "port"} {
		q.Del(k)
	}
	u.RawQuery = q.Encode()
	bad := engine.Target{Label: tg.Label, URL: &url.URL{Scheme: u.Scheme, User: u.User, Host: u.Host, Path: u.Path, RawQuery: u.RawQuery}, Password: tg.Password}
	const timeout = 2 * time.Second
	start := time.Now()
	e, err := engine.Open(context.Background(), bad, engine.Options{ConnectTimeout: timeout})
	if err == nil {
		defer e.Close()
		var c engine.Conn
		c, err = e.Connect(context.Background())
		if err == nil {
			c.Close()
			t.Fatalf("connected to %s", host)
		}
	}
	el := time.Since(start)
	if !errors.Is(err, engine.ErrConnect) {
		t.Errorf("unreachable: %v does not wrap ErrConnect", err)
	}
	if errors.Is(err, engine.ErrAuth) {
		t.Errorf("unreachable: %v wraps ErrAuth", err)
	}
	if el > timeout+time.Second {
		t.Errorf("failing took %v, timeout %v", el, timeout)
	}
	if pw := tg.Password.Reveal(); pw != "" && strings.Contains(err.Error(), pw) {
		t.Errorf("error reveals the password: %v", err)
	}
	t.Logf("%v (after %v)", err, el.Round(time.Millisecond))
}

// rowsSource yields ncol values at a time from vals.
type rowsSource struct {
	vals []any
	ncol int
	pos  int
}

func (s *rowsSource) Next() bool {
	if s.pos+s.ncol > len(s.vals) {
		return false
	}
	s.pos += s.ncol
	return true
}

func (s *rowsSource) Values() ([]any, error) { return s.vals[s.pos-s.ncol : s.pos], nil }
func (s *rowsSource) Err() error             { return nil }

// testBatch sends batches that begin, write, read and commit a
// transaction, then batches that fail on the server and in the client,
// then batches with synchronization points (with pipelineSync, one whose
// first segment fails on the server while the second runs).
func testBatch(t *testing.T, c engine.SQLConn, tbl string, pipelineSync bool) {
	ctx := context.Background()
	q := c.Dialect().QuoteIdent(tbl)
	prep := func(sql string) engine.Stmt {
		t.Helper()
		st, err := c.Prepare(ctx, sql)
		if err != nil {
			t.Fatalf("prepare %s: %v", sql, err)
		}
		return st
	}
	ins := prep("INSERT INTO " + q + " (k, c) VALUES (?, ?)")
	count := prep("SELECT count(*) FROM " + q + " WHERE k >= ?")
	list := prep("SELECT k, c FROM " + q + " WHERE k >= ? ORDER BY k")
	upd := prep("UPDATE " + q + " SET f = ? WHERE k >= ?")
	committed := func() int64 {
		t.Helper()
		var n int64
		if err := count.QueryRow(ctx, []any{500}, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	var b engine.Batch
	var n, k int64
	var s string
	var rows []string
	b.Begin()
	first := b.Exec(ins, 500, "a")
	b.Exec(ins, 501, "b") // the same statement twice, other arguments
	b.QueryRow(count, []any{500}, &n)
	b.QueryEach(list, []any{500}, []any{&k, &s}, func() error {
		rows = append(rows, fmt.Sprintf("%d %s", k, s))
		return nil
	})
	updated := b.Exec(upd, 1.5, 500)
	listed := b.Query(list, 500)
	b.Commit()
	if err := b.Send(ctx, c); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if got := strings.Join(rows, ", "); n != 2 || got != "500 a, 501 b" {
		t.Errorf("inside the batch's transaction: count %d, rows %q; want 2, \"500 a, 501 b\"", n, got)
	}
	if b.RowsAffected(first) != 1 || b.RowsAffected(updated) != 2 || b.RowsAffected(listed) != 2 {
		t.Errorf("RowsAffected: insert %d, update %d, query %d; want 1, 2, 2", b.RowsAffected(first), b.RowsAffected(updated), b.RowsAffected(listed))
	}
	if got := committed(); got != 2 {
		t.Errorf("after the batch's COMMIT: %d rows, want 2", got)
	}

	// A server error: the batch's transaction is left for ROLLBACK, which
	// takes back the insert before the error.
	b.Reset()
	b.Begin()
	b.Exec(ins, 502, "rolled back")
	bad := b.Exec(ins, nil, "k is NOT NULL")
	b.Exec(ins, 503, "after the error")
	b.Commit()
	err := b.Send(ctx, c)
	var be *engine.BatchError
	if !errors.As(err, &be) || be.Index != bad {
		t.Fatalf("Send with a NOT NULL violation = %v; want a BatchError at index %d", err, bad)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatalf("Rollback after the failed batch: %v", err)
	}
	if got := committed(); got != 2 {
		t.Errorf("after the failed batch: %d rows, want 2", got)
	}

	// Client-side failures: no row, an error from fn.
	b.Reset()
	b.QueryRow(count, []any{500}, &n)
	none := b.QueryRow(list, []any{1 << 30}, &k, &s)
	if err := b.Send(ctx, c); !errors.As(err, &be) || be.Index != none || !errors.Is(err, engine.ErrNoRows) {
		t.Errorf("Send with an empty QueryRow = %v; want ErrNoRows at index %d", err, none)
	}
	stop := errors.New("stop here")
	b.Reset()
	each := b.QueryEach(list, []any{500}, []any{&k, &s}, func() error { return stop })
	if err := b.Send(ctx, c); !errors.As(err, &be) || be.Index != each || !errors.Is(err, stop) {
		t.Errorf("Send with a failing fn = %v; want it at index %d", err, each)
	}
	// The connection still works.
	if got := committed(); got != 2 {
		t.Errorf("after the client-side failures: %d rows, want 2", got)
	}

	// Synchronization points: each segment sees the one before it.
	var n2 int64
	b.Reset()
	b.Exec(ins, 510, "segment 1")
	b.Sync()
	b.QueryRow(count, []any{510}, &n)
	second := b.Exec(ins, 511, "segment 2")
	b.Sync()
	b.QueryRow(count, []any{510}, &n2)
	if err := b.Send(ctx, c); err != nil || n != 1 || n2 != 2 || b.RowsAffected(second) != 1 {
		t.Errorf("Send with sync points = %v, counts %d and %d, second insert %d row(s); want nil, 1, 2, 1", err, n, n2, b.RowsAffected(second))
	}
	if got := committed(); got != 4 {
		t.Errorf("after the batch with sync points: %d rows, want 4", got)
	}
	if !pipelineSync {
		return
	}
	// A server error in the first segment takes back that segment (one
	// implicit transaction) and skips its rest; the second still runs.
	n, n2 = -1, -1
	b.Reset()
	b.Exec(ins, 520, "taken back")
	bad = b.Exec(ins, nil, "k is NOT NULL")
	b.QueryRow(count, []any{500}, &n) // skipped
	b.Sync()
	after := b.Exec(ins, 521, "after the sync")
	b.QueryRow(count, []any{500}, &n2)
	err = b.Send(ctx, c)
	if !errors.As(err, &be) || be.Index != bad {
		t.Errorf("Send with a failing first segment = %v; want a BatchError at index %d", err, bad)
	}
	if n != -1 || n2 != 5 || b.RowsAffected(after) != 1 {
		t.Errorf("skipped count %d, second segment's count %d and insert %d row(s); want -1 (not run), 5, 1", n, n2, b.RowsAffected(after))
	}
	if got := committed(); got != 5 {
		t.Errorf("at the end: %d rows, want 5", got)
	}
}

// testIsolation sets every isolation level on a fresh connection and reads
// it back; levels the engine lacks must be refused, naming the level.
func testIsolation(t *testing.T, e engine.Engine, cfg Config) {
	ctx := context.Background()
	for _, level := range []string{engine.ReadCommitted, engine.RepeatableRead, engine.Serializable, "snapshot"} {
		c := Connect(t, e)
		err := engine.SetIsolation(ctx, c, level)
		want, ok := cfg.Isolations[level]
		if !ok {
			if err == nil || !strings.Contains(err.Error(), level) {
				t.Errorf("SetIsolation(%s) = %v, want an error naming it", level, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("SetIsolation(%s): %v", level, err)
			continue
		}
		if cfg.IsolationSQL == "" {
			continue // nothing to read back: the engine has this level only
		}
		var got string
		if err := c.QueryRow(ctx, cfg.IsolationSQL, nil, &got); err != nil || got != want {
			t.Errorf("after SetIsolation(%s): %s = %q, %v; want %q", level, cfg.IsolationSQL, got, err, want)
		}
		// A batch's BEGIN at a level: the transaction runs at it, with
		// and without a synchronization point in the batch.
		for _, synced := range []bool{false, true} {
			c := Connect(t, e)
			show, err := c.Prepare(ctx, cfg.IsolationSQL)
			if err != nil {
				t.Fatalf("prepare %s: %v", cfg.IsolationSQL, err)
			}
			var b engine.Batch
			var got string
			b.BeginAt(level)
			b.QueryRow(show, nil, &got)
			b.Commit()
			if synced {
				b.Sync()
			}
			if err := b.Send(ctx, c); err != nil || got != want {
				t.Errorf("batch at %s (synced %v): %s = %q, %v; want %q", level, synced, cfg.IsolationSQL, got, err, want)
			}
		}
	}
	// A level the engine does not know is refused, naming it, and the
	// connection goes on.
	c := Connect(t, e)
	var b engine.Batch
	b.BeginAt("snapshot")
	b.Commit()
	if err := b.Send(ctx, c); err == nil || !strings.Contains(err.Error(), "snapshot") {
		t.Errorf("batch at snapshot: %v, want an error naming it", err)
	}
	var one int64
	if err := c.QueryRow(ctx, "SELECT 1", nil, &one); err != nil || one != 1 {
		t.Errorf("after the refused batch: SELECT 1 = %d, %v", one, err)
	}
}
