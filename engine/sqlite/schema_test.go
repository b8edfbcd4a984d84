package sqlite

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
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
		if len(tb.ForeignKeys) > 0 != errors.Is(err, engine.ErrNoForeignKeys) || len(fks) > 0 {
			t.Errorf("ForeignKeySQL(%s) = %q, %v; want ErrNoForeignKeys for a table with foreign keys", tb.Name, fks, err)
		}
	}
	want := strings.TrimSpace(`
CREATE TABLE sk_parent (
  id INTEGER,
  PRIMARY KEY (id)
);
CREATE TABLE sk_child (
  p_id INTEGER NOT NULL,
  n BIGINT NOT NULL,
  price DECIMAL(10, 2) DEFAULT 0 NOT NULL,
  ratio DOUBLE,
  code CHAR(2) DEFAULT 'it''s' NOT NULL,
  name VARCHAR(20) NOT NULL,
  note TEXT,
  at TIMESTAMP NOT NULL,
  ok BOOLEAN DEFAULT TRUE NOT NULL,
  raw BLOB,
  doc TEXT NOT NULL,
  PRIMARY KEY (p_id, n),
  CONSTRAINT sk_child_price CHECK (price >= 0)
);
CREATE UNIQUE INDEX sk_child_name ON sk_child (name);
CREATE INDEX sk_child_cov ON sk_child (code, at DESC, price);
CREATE INDEX sk_child_user ON sk_child ((json_extract(doc, '$.user.name')));
CREATE INDEX sk_child_qty ON sk_child ((json_extract(doc, '$.qty')), n)
`)
	if g := strings.Join(got, ";\n"); g != want {
		t.Errorf("got\n%s\nwant\n%s", g, want)
	}
}
