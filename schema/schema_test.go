package schema

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateReportsEveryProblem(t *testing.T) {
	tables := []*Table{
		{Name: "a", Columns: []Column{{Name: "id", Type: Int}, {Name: "doc", Type: JSON}}, PrimaryKey: []string{"id"},
			Indexes: []Index{{Name: "a_k", Keys: []Key{{Column: "doc", Path: []string{"k"}, Size: 16}, {Column: "doc", Path: []string{"n"}, As: BigInt, Size: 8}}}}},
		{
			Name: "b",
			Columns: []Column{
				{Name: "id", Type: Serial},
				{Name: "id", Type: Int},
				{Name: "name", Type: Varchar},
				{Name: "price", Type: Decimal, Size: 4, Scale: 6},
				{Name: "Bad", Type: Int},
				{Name: "flag", Type: Bool, Default: []int{1}},
			},
			PrimaryKey: []string{"id", "nope"},
			Indexes: []Index{
				{Name: "b_x", Keys: []Key{Col("missing")}},
				{Name: "b_x", Keys: []Key{Path("name", "a")}},
				{Name: "b_y", Keys: []Key{Col("id")}, Include: []string{"ghost"}},
			},
			ForeignKeys: []ForeignKey{
				{Name: "b_a", Columns: []string{"id"}, Ref: "a", RefColumns: []string{"idx"}},
				{Name: "b_z", Columns: []string{"id"}, Ref: "z", RefColumns: []string{"id"}},
			},
			Checks: []Check{{Name: "b_c", Column: "price", Op: "=>", Value: 0}},
		},
		{Name: "a", Columns: []Column{{Name: "id", Type: Int}}},
	}
	errs := Validate(tables)
	var msgs []string
	for _, e := range errs {
		var fe *FieldError
		if !errors.As(e, &fe) {
			t.Errorf("%v is not a *FieldError", e)
		}
		msgs = append(msgs, e.Error())
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{
		"table b: column 2 (id): declared twice",
		"table b: column 3 (name): bad column: varchar needs a size, got 0",
		"table b: column 4 (price): bad column: decimal scale 6 outside 0..4",
		`table b: column 5 (Bad): bad name: "Bad" is not a lower-case identifier`,
		"table b: column 6 (flag): bad column: default of type []int",
		`table b: primary key: unknown column "nope"`,
		"table b: column id: bad column: a serial column must be the one-column primary key",
		`table b: index b_x key: unknown column "missing"`,
		"table b: index b_x: declared twice",
		"table b: index b_x key: bad column: path a into varchar column name",
		`table b: index b_y include: unknown column "ghost"`,
		"table b: foreign key b_a: unknown column a.idx",
		`table b: foreign key b_z: unknown table "z" (a referenced table comes first)`,
		"table a: name: declared twice",
		`table b: check b_c: bad column: operator "=>" (want >=, >, <=, < or <>)`,
		"table a: index a_k key: bad column: size 8 on a key that is no text path",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if len(errs) != 16 {
		t.Errorf("%d problems, want 16:\n%s", len(errs), got)
	}
}

func TestValidateAcceptsEveryKind(t *testing.T) {
	a := &Table{Name: "a", Columns: []Column{{Name: "id", Type: Serial}}, PrimaryKey: []string{"id"}}
	b := &Table{
		Name: "b",
		Columns: []Column{
			{Name: "a_id", Type: Int}, {Name: "n", Type: BigInt}, {Name: "d", Type: Decimal, Size: 10, Scale: 2},
			{Name: "f", Type: Float, Null: true}, {Name: "c", Type: Char, Size: 2, Default: "xx"},
			{Name: "v", Type: Varchar, Size: 9}, {Name: "t", Type: Text}, {Name: "ts", Type: Timestamp},
			{Name: "ok", Type: Bool, Default: true}, {Name: "raw", Type: Bytes}, {Name: "doc", Type: JSON},
		},
		PrimaryKey: []string{"a_id", "n"},
		Indexes: []Index{
			{Name: "b_u", Keys: []Key{Col("v")}, Unique: true},
			{Name: "b_cov", Keys: []Key{Col("c"), {Column: "ts", Desc: true}}, Include: []string{"d"}},
			{Name: "b_path", Keys: []Key{{Column: "doc", Path: []string{"a", "n"}, As: BigInt}}, Set: "s1"},
		},
		ForeignKeys: []ForeignKey{{Name: "b_a", Columns: []string{"a_id"}, Ref: "a", RefColumns: []string{"id"}}},
		Checks:      []Check{{Name: "b_d", Column: "d", Op: ">=", Value: 0}},
	}
	if errs := Validate([]*Table{a, b}); len(errs) > 0 {
		t.Fatal(errs)
	}
}

func TestSelectKeepsSharedAndChosenIndexes(t *testing.T) {
	tb := &Table{Name: "t", Columns: []Column{{Name: "a", Type: Int}}, Indexes: []Index{
		{Name: "always", Keys: []Key{Col("a")}},
		{Name: "x1", Keys: []Key{Col("a")}, Set: "x"},
		{Name: "y1", Keys: []Key{Col("a")}, Set: "y"},
	}}
	for set, want := range map[string]string{"": "always", "x": "always x1", "y": "always y1"} {
		got, err := Select([]*Table{tb}, set)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, x := range got[0].Indexes {
			names = append(names, x.Name)
		}
		if strings.Join(names, " ") != want {
			t.Errorf("Select(%q) = %v, want %s", set, names, want)
		}
	}
	if len(tb.Indexes) != 3 {
		t.Error("Select changed its input")
	}
	if _, err := Select([]*Table{tb}, "z"); !errors.Is(err, ErrUnknownIndexSet) {
		t.Errorf("Select(z) = %v, want ErrUnknownIndexSet", err)
	}
}

// TestValidateDocumentColumn checks that a document column is a JSON
// column, the only one of its table, and not a key.
func TestValidateDocumentColumn(t *testing.T) {
	ok := &Table{Name: "e", Columns: []Column{{Name: "id", Type: BigInt}, {Name: "doc", Type: JSON, Document: true}}, PrimaryKey: []string{"id"},
		Indexes: []Index{{Name: "e_type", Keys: []Key{Path("doc", "type")}}}}
	if errs := ok.Validate(); len(errs) > 0 {
		t.Fatalf("a document column: %v", errs)
	}
	bad := &Table{Name: "e", Columns: []Column{
		{Name: "id", Type: JSON, Document: true},
		{Name: "a", Type: Text, Document: true},
		{Name: "b", Type: JSON, Document: true},
	}, PrimaryKey: []string{"id"}}
	var msgs []string
	for _, e := range bad.Validate() {
		msgs = append(msgs, e.Error())
	}
	want := []string{
		"table e: column 1 (id): bad column: a document column is not a key",
		"table e: column 2 (a): bad column: a document column is JSON, not text",
		"table e: column 3 (b): bad column: a second document column",
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}
