package sqlconn_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sqlconn"
)

// conn is a Conn on a throw-away SQLite file (the driver needs no server)
// whose Normalizer records the column types it is given.
func conn(t *testing.T, begin string, types *[]string) *sqlconn.Conn {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sc, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := sqlconn.New(sc, begin, func(dbType string, v any) any {
		*types = append(*types, dbType)
		if n, ok := v.(int64); ok {
			return n * 10
		}
		return v
	})
	return &c
}

func TestConn(t *testing.T) {
	ctx := context.Background()
	var types []string
	c := conn(t, "BEGIN IMMEDIATE", &types)
	for _, q := range []string{"CREATE TABLE t (id INTEGER, name TEXT)", "INSERT INTO t VALUES (1, 'a'), (2, 'b')"} {
		if err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}

	// QueryRows hands each value through the Normalizer with its column's type.
	types = nil
	var got []any
	err := c.QueryRows(ctx, "SELECT id, name FROM t WHERE id >= ? ORDER BY id", []any{1}, func(row []any) error {
		got = append(got, row...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{int64(10), "a", int64(20), "b"}; !slices.Equal(got, want) {
		t.Errorf("QueryRows rows %v, want %v", got, want)
	}
	if want := []string{"INTEGER", "TEXT", "INTEGER", "TEXT"}; !slices.Equal(types, want) {
		t.Errorf("Normalizer saw types %q, want %q", types, want)
	}
	stop := errors.New("stop")
	if err := c.QueryRows(ctx, "SELECT id FROM t", nil, func([]any) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("QueryRows with a failing fn = %v, want its error", err)
	}

	var name string
	if err := c.QueryRow(ctx, "SELECT name FROM t WHERE id = ?", []any{3}, &name); !errors.Is(err, engine.ErrNoRows) {
		t.Errorf("QueryRow of nothing = %v, want engine.ErrNoRows", err)
	}

	// Begin sends the engine's statement: BEGIN IMMEDIATE takes the write
	// lock at once, so a rolled-back insert leaves nothing.
	if err := c.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := c.Prepare(ctx, "INSERT INTO t VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := st.Exec(ctx, 3, "c"); err != nil || n != 1 {
		t.Fatalf("Exec = %d, %v", n, err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var count int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM t", nil, &count); err != nil || count != 2 {
		t.Errorf("count after rollback = %d, %v; want 2", count, err)
	}
	if err := c.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Begin(ctx); err == nil {
		t.Error("a second Begin inside a transaction succeeded")
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := st.Exec(ctx, 4, "d"); err == nil {
		t.Error("a statement works after Close")
	}
	if err := c.Ping(ctx); err == nil {
		t.Error("Ping works after Close")
	}
}
