package mongo_test

import (
	"fmt"

	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/all/mongo"
)

// With every workload registered, workload.ForFamily picks a workload's
// implementation for a target's engine: the registered workload on SQL
// engines, its …/mongo subpackage's on MongoDB, or an error for a
// workload that has none.
func Example() {
	m, _ := workload.Lookup("airline")
	w := m.New()
	onPostgres, _ := workload.ForFamily(w, postgres.Dialect{})
	onMongo, _ := workload.ForFamily(w, mongo.Dialect{})
	fmt.Println(onPostgres == w, onMongo == w, onMongo.Define().Meta.Name)

	m, _ = workload.Lookup("tpcc")
	_, err := workload.ForFamily(m.New(), mongo.Dialect{})
	fmt.Println(err)
	// Output:
	// true false airline
	// workload does not run on this engine: tpcc has no implementation for mongodb targets
}
