// Package schematest declares the tables the engines' schema tests render
// and create: a parent table with a serial key and a child table with every
// column type, every index kind, a foreign key to the parent and a check.
package schematest

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
)

// Parent is the table prefix_parent: a serial primary key id, then more.
func Parent(prefix string, more ...schema.Column) *schema.Table {
	return &schema.Table{
		Name:       prefix + "_parent",
		Columns:    append([]schema.Column{{Name: "id", Type: schema.Serial}}, more...),
		PrimaryKey: []string{"id"},
	}
}

// Child is the table prefix_child, whose column code defaults to code: every
// column type, every index kind, a foreign key to prefix_parent and a check.
func Child(prefix string, code any) *schema.Table {
	c := prefix + "_child"
	return &schema.Table{
		Name: c,
		Columns: []schema.Column{
			{Name: "p_id", Type: schema.Int},
			{Name: "n", Type: schema.BigInt},
			{Name: "price", Type: schema.Decimal, Size: 10, Scale: 2, Default: 0},
			{Name: "ratio", Type: schema.Float, Null: true},
			{Name: "code", Type: schema.Char, Size: 2, Default: code},
			{Name: "name", Type: schema.Varchar, Size: 20},
			{Name: "note", Type: schema.Text, Null: true},
			{Name: "at", Type: schema.Timestamp},
			{Name: "ok", Type: schema.Bool, Default: true},
			{Name: "raw", Type: schema.Bytes, Null: true},
			{Name: "doc", Type: schema.JSON},
			{Name: "small", Type: schema.SmallInt, Default: 0},
			{Name: "day", Type: schema.Date, Null: true},
		},
		PrimaryKey: []string{"p_id", "n"},
		Indexes: []schema.Index{
			{Name: c + "_name", Keys: []schema.Key{schema.Col("name")}, Unique: true},
			{Name: c + "_cov", Keys: []schema.Key{schema.Col("code"), {Column: "at", Desc: true}}, Include: []string{"price"}},
			{Name: c + "_user", Keys: []schema.Key{schema.Path("doc", "user", "name")}},
			{Name: c + "_qty", Keys: []schema.Key{{Column: "doc", Path: []string{"qty"}, As: schema.BigInt}, schema.Col("n")}},
		},
		ForeignKeys: []schema.ForeignKey{{Name: c + "_parent", Columns: []string{"p_id"}, Ref: prefix + "_parent", RefColumns: []string{"id"}}},
		Checks:      []schema.Check{{Name: c + "_price", Column: "price", Op: ">=", Value: 0}},
	}
}

// Kinds is the parent sk_parent and the child sk_child, whose code defaults
// to "it's", a string to quote.
func Kinds() (*schema.Table, *schema.Table) {
	return Parent("sk"), Child("sk", "it's")
}

// Render validates Kinds and renders its tables with r, each in the three
// steps SQLCatalog runs: CreateTableSQL, AfterLoadSQL, then ForeignKeySQL,
// whose result fk checks and whose statements are kept unless it failed.
// It returns the statements joined by ";\n".
func Render(t *testing.T, r engine.SchemaRenderer, fk func(tb *schema.Table, fks []string, err error)) string {
	t.Helper()
	parent, child := Kinds()
	if errs := schema.Validate([]*schema.Table{parent, child}); len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, tb := range []*schema.Table{parent, child} {
		got = append(got, r.CreateTableSQL(tb)...)
		got = append(got, r.AfterLoadSQL(tb)...)
		fks, err := r.ForeignKeySQL(tb)
		fk(tb, fks, err)
		if err == nil {
			got = append(got, fks...)
		}
	}
	return strings.Join(got, ";\n")
}

// NoError is Render's check of an engine that has foreign keys: the test
// fails if ForeignKeySQL does.
func NoError(t *testing.T) func(*schema.Table, []string, error) {
	return func(_ *schema.Table, _ []string, err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
}
