package mongo_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/all/mongo"
)

// Every workload runs on SQL engines; the sysbench tests, airline,
// payments, docolap and jsonbench also on MongoDB, through their …/mongo
// subpackages; TPC-C (and any other) only on SQL engines.
func TestFamilies(t *testing.T) {
	both := []engine.Family{engine.FamilySQL, engine.FamilyMongo}
	sqlOnly := []engine.Family{engine.FamilySQL}
	all := workload.All()
	if len(all) < 12 {
		t.Fatalf("%d workloads registered", len(all))
	}
	for _, m := range all {
		want := sqlOnly
		if strings.HasPrefix(m.Name, "oltp_") || m.Name == "airline" || m.Name == "payments" || m.Name == "docolap" || m.Name == "jsonbench" {
			want = both
		}
		if got := workload.Families(m.Name); !reflect.DeepEqual(got, want) {
			t.Errorf("%s runs on %v, want %v", m.Name, got, want)
		}
	}
}
