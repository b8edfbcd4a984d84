package schema_test

import (
	"fmt"

	"github.com/dbarena/dbarena/schema"
)

// A table of JSON documents with two index sets a study compares: the
// workload picks one by an option and hands the engines the result of
// Select.
func Example() {
	events := &schema.Table{
		Name: "events",
		Columns: []schema.Column{
			{Name: "id", Type: schema.BigInt},
			{Name: "kind", Type: schema.Varchar, Size: 20},
			{Name: "amount", Type: schema.Decimal, Size: 12, Scale: 2, Default: 0},
			{Name: "doc", Type: schema.JSON},
		},
		PrimaryKey: []string{"id"},
		Indexes: []schema.Index{
			{Name: "events_kind", Keys: []schema.Key{schema.Col("kind")}, Include: []string{"amount"}},
			{Name: "events_user", Keys: []schema.Key{schema.Path("doc", "user", "id")}, Set: "paths"},
			{Name: "events_user_kind", Keys: []schema.Key{schema.Path("doc", "user", "id"), schema.Col("kind")}, Set: "compound"},
		},
	}
	tables := []*schema.Table{events}
	fmt.Println("problems:", len(schema.Validate(tables)))
	fmt.Println("index sets:", schema.IndexSets(tables))
	chosen, err := schema.Select(tables, "paths")
	if err != nil {
		panic(err)
	}
	for _, x := range chosen[0].Indexes {
		fmt.Println("index", x.Name)
	}
	_, err = schema.Select(tables, "gin")
	fmt.Println(err)
	// Output:
	// problems: 0
	// index sets: [compound paths]
	// index events_kind
	// index events_user
	// unknown index set "gin" (known: compound, paths)
}
