package all_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/engine/internal/schematest"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/schema"
)

// declared is a parent table with a serial key and a child table with
// every column type, every index kind and a foreign key to the parent.
func declared() []*schema.Table {
	return []*schema.Table{
		schematest.Parent("dk", schema.Column{Name: "label", Type: schema.Varchar, Size: 10}),
		schematest.Child("dk", "zz"),
	}
}

type sliceRows struct {
	rows [][]any
	i    int
}

func (s *sliceRows) Next() bool             { s.i++; return s.i <= len(s.rows) }
func (s *sliceRows) Values() ([]any, error) { return s.rows[s.i-1], nil }
func (s *sliceRows) Err() error             { return nil }

var (
	at  = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	day = time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
)

func rowsOf(table string) [][]any {
	if table == "dk_parent" {
		return [][]any{{1, "a"}, {2, "b"}, {3, "c"}}
	}
	var out [][]any
	for i := 1; i <= 200; i++ {
		doc := json.RawMessage(fmt.Sprintf(`{"user": {"name": "u%d", "tags": ["x", "y"]}, "qty": %d}`, i, i%7))
		out = append(out, []any{1 + i%3, int64(i), 1.25 * float64(i), nil, "ab", fmt.Sprintf("name%d", i), nil, at, i%2 == 0, []byte{byte(i)}, doc, int16(i), day})
	}
	return out
}

// create takes the tables through the Catalog as prepare does.
func create(t *testing.T, c engine.Conn, tables []*schema.Table) {
	t.Helper()
	ctx := context.Background()
	cat := c.Catalog()
	t.Cleanup(func() {
		for i := len(tables) - 1; i >= 0; i-- {
			_ = cat.DropTable(context.Background(), tables[i].Name)
		}
	})
	for _, tb := range tables {
		_ = cat.DropTable(ctx, tb.Name)
	}
	for _, tb := range tables {
		def := tb
		if err := cat.CreateTable(ctx, def); err != nil {
			t.Fatalf("create %s: %v", tb.Name, err)
		}
		if n, err := cat.BulkLoad(ctx, def, &sliceRows{rows: rowsOf(tb.Name)}); err != nil || n != int64(len(rowsOf(tb.Name))) {
			t.Fatalf("load %s: %d, %v", tb.Name, n, err)
		}
		if err := cat.FinishTable(ctx, def); err != nil {
			t.Fatalf("finish %s: %v", tb.Name, err)
		}
	}
	for _, tb := range tables {
		err := cat.AddForeignKeys(ctx, tb)
		if errors.Is(err, engine.ErrNoForeignKeys) && c.(engine.SQLConn).Dialect().Name() == "sqlite" && len(tb.ForeignKeys) > 0 {
			continue // SQLite refuses them
		}
		if err != nil {
			t.Fatalf("foreign keys of %s: %v", tb.Name, err)
		}
	}
	for _, tb := range tables {
		cols, err := cat.Columns(ctx, tb.Name)
		if err != nil || !slices.Equal(cols, tb.ColumnNames()) {
			t.Errorf("Columns(%s) = %v, %v; want %v", tb.Name, cols, err, tb.ColumnNames())
		}
	}
}

func strings1(t *testing.T, c engine.SQLConn, sql string, args ...any) []string {
	t.Helper()
	var out []string
	if err := c.QueryRows(context.Background(), sql, args, func(row []any) error {
		out = append(out, strings.ToLower(fmt.Sprint(row[0])))
		return nil
	}); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	slices.Sort(out)
	return out
}

func TestDeclaredSchemaSQL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		target  func(testing.TB) engine.Target
		indexes string // index names of a table, one '?'
		fks     string // foreign key names of a table, one '?'
		insert  string // a parent row without an id
		path    string // the text at doc.user.name
	}{
		{"postgres", testdb.Postgres,
			"SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ?",
			"SELECT constraint_name FROM information_schema.table_constraints WHERE table_schema = current_schema() AND table_name = ? AND constraint_type = 'FOREIGN KEY'",
			"INSERT INTO dk_parent (label) VALUES ('new')",
			"doc->'user'->>'name'"},
		{"mysql", testdb.MySQL,
			"SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ?",
			"SELECT constraint_name FROM information_schema.table_constraints WHERE table_schema = DATABASE() AND table_name = ? AND constraint_type = 'FOREIGN KEY'",
			"INSERT INTO dk_parent (label) VALUES ('new')",
			"JSON_UNQUOTE(JSON_EXTRACT(doc, '$.user.name'))"},
		{"sqlite", testdb.SQLite,
			"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
			"SELECT 'dk_child_parent' FROM pragma_foreign_key_list(?)",
			"INSERT INTO dk_parent (label) VALUES ('new')",
			"json_extract(doc, '$.user.name')"},
	} {
		t.Run("engine="+tc.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, testdb.Isolated(t, tc.target(t)))
			c := enginetest.Connect(t, e)
			tables := declared()
			create(t, c, tables)

			idx := strings1(t, c, tc.indexes, "dk_child")
			want := []string{"dk_child_cov", "dk_child_name", "dk_child_qty", "dk_child_user"}
			if tc.name != "sqlite" { // the primary key's own index
				want = append(want, map[string]string{"postgres": "dk_child_pkey", "mysql": "primary"}[tc.name])
				slices.Sort(want)
			}
			if !slices.Equal(idx, want) {
				t.Errorf("indexes = %v, want %v", idx, want)
			}
			wantFK := []string{"dk_child_parent"}
			if tc.name == "sqlite" {
				wantFK = nil
			}
			if fks := strings1(t, c, tc.fks, "dk_child"); !slices.Equal(fks, wantFK) {
				t.Errorf("foreign keys = %v", fks)
			}
			// The serial counter continues after the loaded ids.
			if err := c.Exec(ctx, tc.insert); err != nil {
				t.Fatal(err)
			}
			var id int64
			if err := c.QueryRow(ctx, "SELECT id FROM dk_parent WHERE label = 'new'", nil, &id); err != nil || id != 4 {
				t.Errorf("new parent id = %d, %v; want 4", id, err)
			}
			// Values read back, the JSON document through its path.
			var name, code string
			var n int64
			var ok bool
			if err := c.QueryRow(ctx, "SELECT n, code, ok, "+tc.path+" FROM dk_child WHERE name = 'name10'", nil, &n, &code, &ok, &name); err != nil {
				t.Fatal(err)
			}
			if n != 10 || code != "ab" || !ok || name != "u10" {
				t.Errorf("row = %d %q %v %q; want 10 ab true u10", n, code, ok, name)
			}
			// Defaults apply to rows inserted without the column.
			if err := c.Exec(ctx, "INSERT INTO dk_child (p_id, n, name, at, doc) VALUES (1, 1000, 'dflt', '2026-01-01 00:00:00', '{}')"); err != nil {
				t.Fatal(err)
			}
			var price float64
			if err := c.QueryRow(ctx, "SELECT price, code, ok FROM dk_child WHERE n = 1000", nil, &price, &code, &ok); err != nil || price != 0 || code != "zz" || !ok {
				t.Errorf("defaults = %v %q %v, %v; want 0 zz true", price, code, ok, err)
			}
			// The check refuses a negative price.
			if err := c.Exec(ctx, "INSERT INTO dk_child (p_id, n, name, at, doc, price) VALUES (1, 1002, 'neg', '2026-01-01 00:00:00', '{}', -1)"); err == nil {
				t.Error("a negative price got past the check")
			}
			// The unique index refuses a second row with the same name.
			err := c.Exec(ctx, "INSERT INTO dk_child (p_id, n, name, at, doc) VALUES (1, 1001, 'dflt', '2026-01-01 00:00:00', '{}')")
			if cl := e.Dialect().Classify(err); cl != engine.ClassUniqueViolation {
				t.Errorf("duplicate name: %v (%v), want a unique violation", err, cl)
			}
			if tc.name != "sqlite" {
				foreignKeys(t, c, tc.name, tables[1])
			}
			if tc.name == "postgres" {
				// Loaded tables are analyzed: the planner has statistics
				// before autovacuum comes by.
				for _, tb := range []string{"dk_parent", "dk_child"} {
					var analyzed bool
					if err := c.QueryRow(ctx, "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = ?", []any{tb}, &analyzed); err != nil || !analyzed {
						t.Errorf("%s analyzed after the load: %v, %v", tb, analyzed, err)
					}
				}
				// The planner takes the JSON-path index.
				if err := c.Exec(ctx, "SET enable_seqscan = off"); err != nil {
					t.Fatal(err)
				}
				var plan []string
				if err := c.QueryRows(ctx, "EXPLAIN SELECT n FROM dk_child WHERE doc->'user'->>'name' = 'u10'", nil, func(row []any) error {
					plan = append(plan, fmt.Sprint(row[0]))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if p := strings.Join(plan, "\n"); !strings.Contains(p, "dk_child_user") {
					t.Errorf("plan does not use dk_child_user:\n%s", p)
				}
			}
		})
	}
}

func TestDeclaredSchemaMongo(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Mongo(t)))
	conn, err := e.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tables := declared()
	create(t, conn, tables)
	db := conn.(*mongo.Conn).DB()

	// A one-column primary key is _id.
	var p bson.M
	if err := db.Collection("dk_parent").FindOne(ctx, bson.D{{Key: "_id", Value: 2}}).Decode(&p); err != nil || p["label"] != "b" {
		t.Errorf("parent 2 = %v, %v", p, err)
	}
	// The JSON column is a nested document, found through its path.
	var doc struct {
		N   int64 `bson:"n"`
		Doc struct {
			User struct {
				Name string   `bson:"name"`
				Tags []string `bson:"tags"`
			} `bson:"user"`
			Qty int64 `bson:"qty"`
		} `bson:"doc"`
	}
	if err := db.Collection("dk_child").FindOne(ctx, bson.D{{Key: "doc.user.name", Value: "u10"}}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.N != 10 || doc.Doc.Qty != 3 || !slices.Equal(doc.Doc.User.Tags, []string{"x", "y"}) {
		t.Errorf("document = %+v", doc)
	}
	var raw bson.Raw
	if err := db.Collection("dk_child").FindOne(ctx, bson.D{{Key: "n", Value: 10}}).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if ty := raw.Lookup("doc").Type; ty != bson.TypeEmbeddedDocument {
		t.Errorf("doc is stored as %v, want an embedded document", ty)
	}
	// A decimal is a Decimal128 at the column's scale: 1.25 × 10 = 12.50.
	if d, ok := raw.Lookup("price").Decimal128OK(); !ok || d.String() != "12.50" {
		t.Errorf("price = %v, want the Decimal128 12.50", raw.Lookup("price"))
	}
	// The check is the collection's validator.
	if _, err := db.Collection("dk_child").UpdateOne(ctx, bson.D{{Key: "n", Value: 10}}, bson.D{{Key: "$set", Value: bson.D{{Key: "price", Value: -1}}}}); err == nil {
		t.Error("a negative price got past the validator")
	}

	cur, err := db.Collection("dk_child").Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var specs []struct {
		Name   string `bson:"name"`
		Key    bson.D `bson:"key"`
		Unique bool   `bson:"unique"`
	}
	if err := cur.All(ctx, &specs); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range specs {
		var keys []string
		for _, k := range s.Key {
			keys = append(keys, fmt.Sprintf("%s:%v", k.Key, k.Value))
		}
		got[s.Name] = fmt.Sprintf("%s unique=%v", strings.Join(keys, ","), s.Unique)
	}
	want := map[string]string{
		"_id_":          "_id:1 unique=false",
		"dk_child_pkey": "p_id:1,n:1 unique=true",
		"dk_child_name": "name:1 unique=true",
		"dk_child_cov":  "code:1,at:-1 unique=false",
		"dk_child_user": "doc.user.name:1 unique=false",
		"dk_child_qty":  "doc.qty:1,n:1 unique=false",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("index %s = %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("indexes = %v", got)
	}
}

// foreignKeys checks child's foreign key, added by create: it refuses a
// row without its parent on the session that added it; and adding it to
// a table holding such a row fails, naming the key (and on MySQL, where
// dbarena checks the rows itself, the row's key), and leaves the
// session's own checks on.
func foreignKeys(t *testing.T, c engine.Conn, name string, child *schema.Table) {
	t.Helper()
	ctx := context.Background()
	sc := c.(engine.SQLConn)
	orphan := "INSERT INTO dk_child (p_id, n, name, at, doc) VALUES (99, 1003, 'orphan', '2026-01-01 00:00:00', '{}')"
	if err := sc.Exec(ctx, orphan); err == nil || !strings.Contains(strings.ToLower(err.Error()), "foreign key") {
		t.Errorf("a child without its parent: %v, want a foreign key violation", err)
	}
	drop := map[string]string{"postgres": "DROP CONSTRAINT", "mysql": "DROP FOREIGN KEY"}[name]
	if err := sc.Exec(ctx, "ALTER TABLE dk_child "+drop+" dk_child_parent"); err != nil {
		t.Fatal(err)
	}
	if err := sc.Exec(ctx, orphan); err != nil {
		t.Fatal(err)
	}
	err := c.Catalog().AddForeignKeys(ctx, child)
	if err == nil || !strings.Contains(err.Error(), "dk_child_parent") {
		t.Errorf("adding the key over a row without its parent: %v", err)
	}
	if name == "mysql" {
		if err == nil || !strings.Contains(err.Error(), "(p_id) = (99)") {
			t.Errorf("the error does not name the row's key: %v", err)
		}
		var on int64
		if err := sc.QueryRow(ctx, "SELECT @@foreign_key_checks", nil, &on); err != nil || on != 1 {
			t.Errorf("foreign_key_checks = %d, %v after the failure; want 1", on, err)
		}
	}
	if err := sc.Exec(ctx, "DELETE FROM dk_child WHERE p_id = 99"); err != nil {
		t.Fatal(err)
	}
	if err := c.Catalog().AddForeignKeys(ctx, child); err != nil {
		t.Errorf("adding the key again: %v", err)
	}
	if err := sc.Exec(ctx, orphan); err == nil {
		t.Error("a child without its parent got in after the key was added again")
	}
}
