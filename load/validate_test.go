package load

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
)

func TestValidateSchemas(t *testing.T) {
	good := &schema.Table{Name: "a", Columns: []schema.Column{{Name: "id", Type: schema.Int}}, PrimaryKey: []string{"id"}}
	bad := &schema.Table{Name: "b", Columns: []schema.Column{{Name: "id", Type: schema.Int}}, PrimaryKey: []string{"nope"},
		Indexes: []schema.Index{{Name: "b_x", Keys: []schema.Key{schema.Col("ghost")}}}}
	if err := validateSchemas([]workload.Table{{Schema: good, Name: "a"}}); err != nil {
		t.Errorf("valid declaration: %v", err)
	}
	err := validateSchemas([]workload.Table{{Schema: good, Name: "a"}, {Schema: bad, Name: "b"}})
	for _, want := range []string{`table b: primary key: unknown column "nope"`, `table b: index b_x key: unknown column "ghost"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("validateSchemas = %v, want it to report %s", err, want)
		}
	}
	if err := validateSchemas([]workload.Table{{Name: "c"}}); err == nil || !strings.Contains(err.Error(), "no schema") {
		t.Errorf("table without a schema: %v", err)
	}
	if err := validateSchemas([]workload.Table{{Schema: good, Name: "z"}}); err == nil || !strings.Contains(err.Error(), "named z") {
		t.Errorf("name differing from the schema's: %v", err)
	}
}
