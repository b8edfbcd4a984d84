package all_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/schema"
)

// sizedRows is the table sz_big's rows: n of them, each with 100
// characters of hex that no engine compresses much.
func sizedRows(n int) [][]any {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]any, n)
	for i := range out {
		var b strings.Builder
		for b.Len() < 100 {
			fmt.Fprintf(&b, "%016x", r.Uint64())
		}
		out[i] = []any{int64(i + 1), r.IntN(1000), b.String()[:100]}
	}
	return out
}

// Every engine reports each table's size on disk after a load: positive,
// data and indexes adding up to the total, index bytes for a table with
// indexes, and figures that follow the rows loaded (at least 40 bytes of
// data per 100-character row: an engine that reported its statistics
// from before the load, or cached pages, would show one page).
func TestTableSizes(t *testing.T) {
	const rows = 20000
	for _, tc := range []struct {
		name   string
		target func(testing.TB) engine.Target
	}{
		{"postgres", testdb.Postgres},
		{"mysql", testdb.MySQL},
		{"sqlite", testdb.SQLite},
		{"mongo", testdb.Mongo},
	} {
		t.Run("engine="+tc.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, testdb.Isolated(t, tc.target(t)))
			c, err := e.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			tables := declared()
			create(t, c, tables)
			big := &schema.Table{
				Name: "sz_big",
				Columns: []schema.Column{
					{Name: "id", Type: schema.BigInt},
					{Name: "k", Type: schema.Int},
					{Name: "pad", Type: schema.Varchar, Size: 100},
				},
				PrimaryKey: []string{"id"},
				Indexes:    []schema.Index{{Name: "sz_big_k", Keys: []schema.Key{schema.Col("k")}}},
			}
			cat := c.Catalog()
			t.Cleanup(func() { _ = cat.DropTable(context.Background(), big.Name) })
			_ = cat.DropTable(ctx, big.Name)
			if err := cat.CreateTable(ctx, big); err != nil {
				t.Fatal(err)
			}
			if n, err := cat.BulkLoad(ctx, big, &sliceRows{rows: sizedRows(rows)}); err != nil || n != rows {
				t.Fatalf("load: %d, %v", n, err)
			}
			if err := cat.FinishTable(ctx, big); err != nil {
				t.Fatal(err)
			}

			sizer, ok := cat.(engine.TableSizer)
			if !ok {
				t.Fatalf("%T is no engine.TableSizer", cat)
			}
			names := []string{"dk_parent", "dk_child", "sz_big"}
			sizes, err := sizer.TableSizes(ctx, names)
			if err != nil {
				t.Fatal(err)
			}
			if len(sizes) != len(names) {
				t.Fatalf("TableSizes = %+v, want %d tables", sizes, len(names))
			}
			for i, s := range sizes {
				if s.Table != names[i] {
					t.Errorf("table %d is %s, want %s", i, s.Table, names[i])
				}
				if s.Data <= 0 || s.Total <= 0 || s.Indexes < 0 {
					t.Errorf("%s: %+v, want positive sizes", s.Table, s)
				}
				if s.Total != s.Data+s.Indexes {
					t.Errorf("%s: total %d is not data %d + indexes %d", s.Table, s.Total, s.Data, s.Indexes)
				}
			}
			for _, s := range sizes[1:] { // tables with secondary indexes
				if s.Indexes <= 0 {
					t.Errorf("%s: %d index bytes, want > 0", s.Table, s.Indexes)
				}
			}
			t.Logf("%+v", sizes)
			if s := sizes[2]; s.Data < rows*40 {
				t.Errorf("%s: %d data bytes for %d rows of 100 characters, want at least %d", s.Table, s.Data, rows, rows*40)
			}
			if _, err := sizer.TableSizes(ctx, []string{"sz_missing"}); err == nil || !strings.Contains(err.Error(), "sz_missing") {
				t.Errorf("TableSizes of a missing table = %v, want an error naming it", err)
			}
		})
	}
}
