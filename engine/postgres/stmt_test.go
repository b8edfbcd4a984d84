package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/internal/testdb"
)

// TestStmtRoundTrip covers what a named statement's round trip (Bind,
// Execute, Sync in one write, the reply read message by message) must get
// right besides the conformance suite: messages the server sends in the
// middle of a reply, an error after some rows, a portal described at run
// time, a cancellation while the server works, and a server that ends the
// session; and the simple queries that begin and end transactions.
func TestStmtRoundTrip(t *testing.T) {
	ctx := context.Background()
	tg := withParam(testdb.Isolated(t, testdb.Postgres(t)), "default_query_exec_mode", "cache_statement")
	e := enginetest.Open(t, tg)
	d := enginetest.Dialect(t, e)
	c := enginetest.Connect(t, e)
	prepare := func(t *testing.T, c engine.SQLConn, sql string) engine.Stmt {
		t.Helper()
		st, err := c.Prepare(ctx, sql)
		if err != nil {
			t.Fatalf("prepare %q: %v", sql, err)
		}
		return st
	}
	alive := func(t *testing.T, c engine.SQLConn) {
		t.Helper()
		var one int64
		if err := prepare(t, c, "SELECT 1::int8").QueryRow(ctx, nil, &one); err != nil || one != 1 {
			t.Fatalf("the connection after: %d, %v", one, err)
		}
	}

	t.Run("asynchronous messages", func(t *testing.T) {
		// application_name is reported: its change comes as a
		// ParameterStatus inside the reply. A notification to a channel
		// the session listens on comes before ReadyForQuery.
		if err := c.Exec(ctx, "LISTEN dbarena_rt"); err != nil {
			t.Fatal(err)
		}
		set := prepare(t, c, "SELECT set_config('application_name', ?, false)")
		notify := prepare(t, c, "SELECT pg_notify('dbarena_rt', ?)")
		for i := 0; i < 3; i++ {
			var got string
			name := fmt.Sprintf("rt-%d", i)
			if err := set.QueryRow(ctx, []any{name}, &got); err != nil || got != name {
				t.Fatalf("set_config = %q, %v; want %q", got, err, name)
			}
			if n, err := notify.Query(ctx, name); err != nil || n != 1 {
				t.Fatalf("pg_notify: %d rows, %v", n, err)
			}
		}
		var got string
		if err := c.QueryRow(ctx, "SHOW application_name", nil, &got); err != nil || got != "rt-2" {
			t.Errorf("application_name = %q, %v", got, err)
		}
		alive(t, c)
	})

	t.Run("error after rows", func(t *testing.T) {
		st := prepare(t, c, "SELECT (10 / (g - ?))::int8 FROM generate_series(1, 5) g")
		var v int64
		var seen []int64
		n, err := st.QueryEach(ctx, []any{3}, []any{&v}, func() error { seen = append(seen, v); return nil })
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "22012" {
			t.Fatalf("QueryEach = %d, %v; want division_by_zero", n, err)
		}
		if fmt.Sprint(seen) != "[-5 -10]" || n != 2 {
			t.Errorf("rows before the error: %v (%d)", seen, n)
		}
		// A stopped QueryEach still reads the reply to its end, and the
		// server's error comes before fn's.
		stop := errors.New("stop")
		n, err = st.QueryEach(ctx, []any{3}, []any{&v}, func() error { return stop })
		if !errors.As(err, &pgErr) || n != 1 {
			t.Errorf("QueryEach stopped then failing = %d, %v; want 1, the server's error", n, err)
		}
		n, err = st.QueryEach(ctx, []any{0}, []any{&v}, func() error { return stop })
		if !errors.Is(err, stop) || n != 1 {
			t.Errorf("QueryEach stopped = %d, %v; want 1, stop", n, err)
		}
		if err := st.QueryRow(ctx, []any{0}, &v); err != nil || v != 10 {
			t.Errorf("QueryRow = %d, %v; want the first row, 10", v, err)
		}
		if err := st.QueryRow(ctx, []any{1}, &v); !errors.As(err, &pgErr) {
			t.Errorf("QueryRow failing at its first row = %v", err)
		}
		var s string
		if err := st.QueryRow(ctx, []any{0}, &v, &s); err == nil || !strings.Contains(err.Error(), "1 columns, 2 destinations") {
			t.Errorf("QueryRow into two destinations = %v", err)
		}
		alive(t, c)
	})

	t.Run("described at run time", func(t *testing.T) {
		// A FETCH prepared before its cursor exists has no columns in its
		// description: the portal is described with each execution.
		c := enginetest.Connect(t, e)
		fetch := prepare(t, c, "FETCH 2 FROM dbarena_cur")
		if err := c.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Exec(ctx, "DECLARE dbarena_cur CURSOR FOR SELECT g::int8, 'n' || g FROM generate_series(1, 5) g"); err != nil {
			t.Fatal(err)
		}
		var g int64
		var name string
		var got []string
		for range 2 {
			if _, err := fetch.QueryEach(ctx, nil, []any{&g, &name}, func() error {
				got = append(got, fmt.Sprintf("%d %s", g, name))
				return nil
			}); err != nil {
				t.Fatalf("FETCH: %v", err)
			}
		}
		if n, err := fetch.Query(ctx); err != nil || n != 1 {
			t.Errorf("the last FETCH: %d rows, %v", n, err)
		}
		if want := "[1 n1 2 n2 3 n3 4 n4]"; fmt.Sprint(got) != want {
			t.Errorf("fetched %v, want %s", got, want)
		}
		if err := c.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("rows affected", func(t *testing.T) {
		tbl := d.QuoteIdent("rt_rows")
		if err := c.Exec(ctx, "CREATE TABLE "+tbl+" (id int8 PRIMARY KEY, v int8)"); err != nil {
			t.Fatal(err)
		}
		ins := prepare(t, c, "INSERT INTO "+tbl+" SELECT g, 0 FROM generate_series(1, ?::int8) g")
		if n, err := ins.Exec(ctx, 1234); err != nil || n != 1234 {
			t.Errorf("insert: %d rows, %v; want 1234", n, err)
		}
		upd := prepare(t, c, "UPDATE "+tbl+" SET v = v + 1 WHERE id > ?")
		if n, err := upd.Exec(ctx, 1000); err != nil || n != 234 {
			t.Errorf("update: %d rows, %v; want 234", n, err)
		}
		if n, err := upd.Exec(ctx, 5000); err != nil || n != 0 {
			t.Errorf("update of nothing: %d rows, %v", n, err)
		}
	})

	t.Run("transaction control", func(t *testing.T) {
		tbl := d.QuoteIdent("rt_tx")
		if err := c.Exec(ctx, "CREATE TABLE "+tbl+" (id int8 PRIMARY KEY)"); err != nil {
			t.Fatal(err)
		}
		ins := prepare(t, c, "INSERT INTO "+tbl+" VALUES (?)")
		count := prepare(t, c, "SELECT count(*)::int8 FROM "+tbl)
		rows := func() (n int64) {
			t.Helper()
			if err := count.QueryRow(ctx, nil, &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(c.Begin(ctx))
		_, err := ins.Exec(ctx, 1)
		must(err)
		must(c.Commit(ctx))
		must(c.Begin(ctx))
		_, err = ins.Exec(ctx, 2)
		must(err)
		must(c.Rollback(ctx))
		if n := rows(); n != 1 {
			t.Errorf("after a commit and a rollback: %d rows, want 1", n)
		}
		// BEGIN inside a transaction draws a warning (a notice), not an
		// error.
		must(c.Begin(ctx))
		must(c.Begin(ctx))
		// A transaction whose statement failed: COMMIT is answered with
		// ROLLBACK, an error.
		if _, err := ins.Exec(ctx, 1); d.Classify(err) != engine.ClassUniqueViolation {
			t.Fatalf("duplicate insert: %v", err)
		}
		if _, err := ins.Exec(ctx, 3); err == nil {
			t.Error("a statement in a failed transaction succeeded")
		}
		if err := c.Commit(ctx); !errors.Is(err, postgres.ErrCommitRolledBack) {
			t.Errorf("COMMIT of a failed transaction = %v, want ErrCommitRolledBack", err)
		}
		if n := rows(); n != 1 {
			t.Errorf("after the failed transaction: %d rows, want 1", n)
		}
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		if err := c.Begin(canceled); d.Classify(err) != engine.ClassCanceled {
			t.Errorf("BEGIN under a canceled context = %v", err)
		}
		must(c.Begin(ctx))
		must(c.Commit(ctx))
	})

	t.Run("canceled while the server works", func(t *testing.T) {
		c := enginetest.Connect(t, e)
		var pid int64
		if err := c.QueryRow(ctx, "SELECT pg_backend_pid()::int8", nil, &pid); err != nil {
			t.Fatal(err)
		}
		sleep := prepare(t, c, "SELECT pg_sleep(?::float8)")
		tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := sleep.Query(tctx, 30.0)
		if cl := d.Classify(err); cl != engine.ClassCanceled {
			t.Fatalf("pg_sleep(30) with a 300ms deadline: %v, class %v; want canceled", err, cl)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("canceling took %v", el)
		}
		// The server stops the statement rather than sleep on.
		watch := enginetest.Connect(t, e)
		var active int64
		for deadline := time.Now().Add(5 * time.Second); ; {
			err := watch.QueryRow(ctx, "SELECT count(*)::int8 FROM pg_stat_activity WHERE pid = ? AND state = 'active'", []any{pid}, &active)
			if err != nil {
				t.Fatal(err)
			}
			if active == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("backend %d still runs the statement 5s after the cancellation", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
		// The connection was given up: its next statement fails as lost,
		// at once, rather than read the old reply.
		_, err = sleep.Query(ctx, 0.0)
		if cl := d.Classify(err); cl != engine.ClassConnLost {
			t.Errorf("the statement after: %v, class %v; want conn_lost", err, cl)
		}
	})

	t.Run("session ended by the server", func(t *testing.T) {
		c := enginetest.Connect(t, e)
		kill := prepare(t, c, "SELECT pg_terminate_backend(pg_backend_pid())")
		_, err := kill.Query(ctx)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "57P01" {
			t.Fatalf("terminating its own backend: %v; want admin_shutdown", err)
		}
		if cl := d.Classify(err); cl != engine.ClassConnLost {
			t.Errorf("class %v, want conn_lost", cl)
		}
		if _, err := kill.Query(ctx); d.Classify(err) != engine.ClassConnLost {
			t.Errorf("the statement after: %v; want conn_lost", err)
		}
	})
}
