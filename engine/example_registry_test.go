package engine_test

import (
	"fmt"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
)

// What the registry knows of an engine, found by any of its schemes.
func ExampleLookup() {
	r, ok := engine.Lookup("mariadb")
	fmt.Println(ok, r.Name, r.Family, r.PasswordEnv)
	t, _ := engine.ParseTarget("postgresql://bench@db1/bench", "", nil)
	fmt.Println(t.URL.Scheme)
	// Output:
	// true mysql sql MYSQL_PWD
	// postgres
}
