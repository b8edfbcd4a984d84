package sqlproc_test

import (
	"fmt"

	"github.com/dbarena/dbarena/workload/internal/sqlproc"
)

// Each engine calls its routines its own way.
func ExampleInstaller_Call() {
	for _, inst := range []sqlproc.Installer{sqlproc.Postgres{}, sqlproc.MySQL{}, sqlproc.MySQL{Functions: true}} {
		fmt.Println(inst.Call("transfer", 3))
	}
	fmt.Println(sqlproc.Call("SELECT missing, result FROM", "lookup", 0))
	// Output:
	// SELECT transfer(?, ?, ?)
	// CALL transfer(?, ?, ?)
	// SELECT transfer(?, ?, ?)
	// SELECT missing, result FROM lookup()
}

// Pick keeps the routines an engine has a source for, in the order asked.
func ExamplePick() {
	rs := sqlproc.Pick([]string{"helper", "a", "b"}, map[string]string{"b": "CREATE FUNCTION b …", "a": "CREATE FUNCTION a …"})
	fmt.Println(sqlproc.Names(rs))
	// Output: [a b]
}
