package schema_test

import (
	"errors"
	"slices"
	"testing"

	ws "github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

func TestDeclaredValid(t *testing.T) {
	for _, set := range schema.IndexSets {
		for _, fks := range []bool{true, false} {
			tables, err := schema.Declared(set, fks)
			if err != nil {
				t.Fatal(err)
			}
			if len(tables) != 33 {
				t.Errorf("%s: %d tables, want 33", set, len(tables))
			}
			if errs := ws.Validate(tables); len(errs) > 0 {
				t.Errorf("%s fks=%v: %v", set, fks, errs)
			}
			// Every foreign key refers to a table created before it.
			seen := map[string]bool{}
			for _, tb := range tables {
				for _, f := range tb.ForeignKeys {
					if !fks {
						t.Errorf("%s: foreign key %s without fks", tb.Name, f.Name)
					}
					if !seen[f.Ref] {
						t.Errorf("%s: foreign key %s refers to %s, created later", tb.Name, f.Name, f.Ref)
					}
				}
				seen[tb.Name] = true
			}
		}
	}
}

func indexNames(t *testing.T, set, table string) []string {
	t.Helper()
	tables, err := schema.Declared(set, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Name == table {
			var out []string
			for _, x := range tb.Indexes {
				out = append(out, x.Name)
			}
			return out
		}
	}
	t.Fatalf("no table %s", table)
	return nil
}

func TestIndexSets(t *testing.T) {
	if got := indexNames(t, schema.SetDBT5, schema.Trade); !slices.Equal(got, []string{"i_t_st_id", "i_t_ca_id", "i_t_s_symb"}) {
		t.Errorf("dbt5 trade indexes %v", got)
	}
	if got := indexNames(t, schema.SetStudy, schema.Trade); !slices.Equal(got, []string{"i_t_st_id", "i_t_ca_id", "i_t_s_symb", "i_t_ca_id_dts", "i_t_s_symb_dts"}) {
		t.Errorf("study trade indexes %v", got)
	}
	if got := indexNames(t, schema.SetTuned, schema.Trade); !slices.Equal(got, []string{"i_t_ca_id_dts", "i_t_s_symb_dts"}) {
		t.Errorf("tuned trade indexes %v", got)
	}
	if got := indexNames(t, schema.SetTuned, schema.DailyMarket); len(got) != 0 {
		t.Errorf("tuned daily_market indexes %v", got)
	}
	tables, _ := schema.Declared(schema.SetTuned, false)
	for _, tb := range tables {
		if tb.Name == schema.DailyMarket && !slices.Equal(tb.PrimaryKey, []string{"dm_s_symb", "dm_date"}) {
			t.Errorf("tuned daily_market key %v", tb.PrimaryKey)
		}
	}
	if _, err := schema.Declared("fast", true); !errors.Is(err, schema.ErrUnknownIndexSet) {
		t.Errorf("unknown set: %v", err)
	}
}
