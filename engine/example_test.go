package engine_test

import (
	"fmt"

	"github.com/dbarena/dbarena/engine"
)

// A labelled target: the password is kept apart and never printed.
func ExampleParseTarget() {
	t, err := engine.ParseTarget("pg15=postgres://bench:secret@127.0.0.1:5432/bench?sslmode=disable", "", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Label)
	fmt.Println(t.Redacted())
	fmt.Println(t)
	fmt.Println(t.Password, t.Password.IsSet())
	// Output:
	// pg15
	// postgres://bench@127.0.0.1:5432/bench?sslmode=disable
	// pg15=postgres://bench@127.0.0.1:5432/bench?sslmode=disable
	// xxxxx true
}
