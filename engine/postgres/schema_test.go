package postgres

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/workload/schema"
)

// kinds declares every column type and index kind.
func kinds() (*schema.Table, *schema.Table) {
	parent := &schema.Table{Name: "sk_parent", Columns: []schema.Column{{Name: "id", Type: schema.Serial}}, PrimaryKey: []string{"id"}}
	child := &schema.Table{
		Name: "sk_child",
		Columns: []schema.Column{
			{Name: "p_id", Type: schema.Int},
			{Name: "n", Type: schema.BigInt},
			{Name: "price", Type: schema.Decimal, Size: 10, Scale: 2, Default: 0},
			{Name: "ratio", Type: schema.Float, Null: true},
			{Name: "code", Type: schema.Char, Size: 2, Default: "it's"},
			{Name: "name", Type: schema.Varchar, Size: 20},
			{Name: "note", Type: schema.Text, Null: true},
			{Name: "at", Type: schema.Timestamp},
			{Name: "ok", Type: schema.Bool, Default: true},
			{Name: "raw", Type: schema.Bytes, Null: true},
			{Name: "doc", Type: schema.JSON},
		},
		PrimaryKey: []string{"p_id", "n"},
		Indexes: []schema.Index{
			{Name: "sk_child_name", Keys: []schema.Key{schema.Col("name")}, Unique: true},
			{Name: "sk_child_cov", Keys: []schema.Key{schema.Col("code"), {Column: "at", Desc: true}}, Include: []string{"price"}},
			{Name: "sk_child_user", Keys: []schema.Key{schema.Path("doc", "user", "name")}},
			{Name: "sk_child_qty", Keys: []schema.Key{{Column: "doc", Path: []string{"qty"}, As: schema.BigInt}, schema.Col("n")}},
		},
		ForeignKeys: []schema.ForeignKey{{Name: "sk_child_parent", Columns: []string{"p_id"}, Ref: "sk_parent", RefColumns: []string{"id"}}},
		Checks:      []schema.Check{{Name: "sk_child_price", Column: "price", Op: ">=", Value: 0}},
	}
	return parent, child
}

func TestRenderSchema(t *testing.T) {
	parent, child := kinds()
	if errs := schema.Validate([]*schema.Table{parent, child}); len(errs) > 0 {
		t.Fatal(errs)
	}
	d := Dialect{}
	var got []string
	for _, tb := range []*schema.Table{parent, child} {
		got = append(got, d.CreateTableSQL(tb)...)
		got = append(got, d.AfterLoadSQL(tb)...)
		fks, err := d.ForeignKeySQL(tb)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fks...)
	}
	want := strings.TrimSpace(`
CREATE TABLE sk_parent (
  id SERIAL
);
ALTER TABLE "sk_parent" ADD PRIMARY KEY ("id");
SELECT setval(pg_get_serial_sequence('sk_parent', 'id'), (SELECT COALESCE(MAX("id"), 0) + 1 FROM "sk_parent"), false);
ANALYZE sk_parent;
CREATE TABLE sk_child (
  p_id INTEGER NOT NULL,
  n BIGINT NOT NULL,
  price NUMERIC(10, 2) DEFAULT 0 NOT NULL,
  ratio DOUBLE PRECISION,
  code CHAR(2) DEFAULT 'it''s' NOT NULL,
  name VARCHAR(20) NOT NULL,
  note TEXT,
  at TIMESTAMP NOT NULL,
  ok BOOLEAN DEFAULT TRUE NOT NULL,
  raw BYTEA,
  doc JSONB NOT NULL,
  CONSTRAINT sk_child_price CHECK (price >= 0)
);
ALTER TABLE "sk_child" ADD PRIMARY KEY ("p_id", "n");
CREATE UNIQUE INDEX sk_child_name ON sk_child (name);
CREATE INDEX sk_child_cov ON sk_child (code, at DESC) INCLUDE (price);
CREATE INDEX sk_child_user ON sk_child ((doc->'user'->>'name'));
CREATE INDEX sk_child_qty ON sk_child (((doc->>'qty')::bigint), n);
ANALYZE sk_child;
ALTER TABLE sk_child ADD CONSTRAINT sk_child_parent FOREIGN KEY (p_id) REFERENCES sk_parent (id)
`)
	if g := strings.Join(got, ";\n"); g != want {
		t.Errorf("got\n%s\nwant\n%s", g, want)
	}
}
