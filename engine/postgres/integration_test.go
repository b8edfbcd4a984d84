package postgres_test

import (
	"context"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	_ "github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/internal/testdb"
)

// withParam returns t with URL query parameter k set to v.
func withParam(t engine.Target, k, v string) engine.Target {
	u := *t.URL
	q := u.Query()
	q.Set(k, v)
	u.RawQuery = q.Encode()
	t.URL = &u
	return t
}

func TestConformance(t *testing.T) {
	tg := testdb.Isolated(t, testdb.Postgres(t))
	for _, mode := range []string{"cache_statement", "exec", "simple_protocol"} {
		t.Run("mode="+mode, func(t *testing.T) {
			enginetest.Run(t, withParam(tg, "default_query_exec_mode", mode), enginetest.Config{
				Table:          "conf_pg_" + mode,
				MultiStatement: true,
				Network:        mode == "cache_statement",
				PipelineSync:   mode == "cache_statement",
				Deadlock:       true,
				SleepSQL:       "SELECT pg_sleep(5)",
				IsolationSQL:   "SHOW transaction_isolation",
				Isolations:     map[string]string{engine.ReadCommitted: "read committed", engine.RepeatableRead: "repeatable read", engine.Serializable: "serializable"},
			})
		})
	}
}

// TestConformancePgBouncer runs the suite through PgBouncer in transaction
// mode, where only the exec modes without named statements work. (Not
// testdb.Isolated: PgBouncer refuses a search_path startup parameter.)
func TestConformancePgBouncer(t *testing.T) {
	tg := testdb.PgBouncer(t)
	if tg.URL.Query().Get("default_query_exec_mode") == "" {
		tg = withParam(tg, "default_query_exec_mode", "exec")
	}
	enginetest.Run(t, tg, enginetest.Config{
		Table:           "conf_pgbouncer",
		MultiStatement:  true,
		Network:         true,
		LoginNoAuthCode: true,
		Deadlock:        true,
		SleepSQL:        "SELECT pg_sleep(5)",
		// The SET is accepted, but under transaction pooling a session
		// setting stays with whichever server connection ran it: no
		// read-back.
		Isolations: map[string]string{engine.ReadCommitted: "", engine.RepeatableRead: "", engine.Serializable: ""},
	})
}

func BenchmarkPointSelect(b *testing.B) {
	tg := testdb.Isolated(b, testdb.Postgres(b))
	ctx := context.Background()
	e := enginetest.Open(b, tg)
	c := enginetest.Connect(b, e)
	for _, sql := range []string{
		"CREATE TABLE bench_point (id INTEGER PRIMARY KEY, c CHAR(120) NOT NULL)",
		"INSERT INTO bench_point SELECT i, repeat('x', 120) FROM generate_series(1, 10000) i",
	} {
		if err := c.Exec(ctx, sql); err != nil {
			b.Fatal(err)
		}
	}
	st, err := c.Prepare(ctx, "SELECT c FROM bench_point WHERE id = ?")
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, ctx context.Context) {
		b.ReportAllocs()
		id := 1
		for b.Loop() {
			n, err := st.Query(ctx, id)
			if err != nil || n != 1 {
				b.Fatalf("Query(%d) = %d, %v", id, n, err)
			}
			id = id%10000 + 1
		}
	}
	b.Run("ctx=background", func(b *testing.B) { run(b, ctx) })
	b.Run("ctx=cancelable", func(b *testing.B) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		run(b, cctx)
	})
}
