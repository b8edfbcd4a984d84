package byengine_test

import (
	"errors"
	"fmt"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/byengine"
)

var errNoProcedures = errors.New("no stored procedures; use --mode client")

// A workload's per-engine files register their parts; the workload looks
// up the part of the engine it runs on by the dialect's Kind.
func Example() {
	calls := byengine.Registry[string]{What: "example procedures", Err: errNoProcedures}
	calls.Register(engine.KindPostgres, "SELECT f(?)")
	calls.Register(engine.KindMySQL, "CALL f(?)")

	call, err := calls.For(engine.KindMySQL)
	fmt.Println(call, err)
	_, err = calls.For(engine.KindSQLite)
	fmt.Println(err, errors.Is(err, errNoProcedures))
	fmt.Println(calls.Kinds())
	// Output:
	// CALL f(?) <nil>
	// sqlite has no example procedures true
	// [mysql postgres]
}
