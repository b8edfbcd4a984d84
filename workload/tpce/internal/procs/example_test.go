package procs_test

import (
	"fmt"

	"github.com/dbarena/dbarena/workload/tpce/internal/procs"
)

// A mode is procedure or frames; anything else is refused, naming it.
func ExampleMode_Validate() {
	for _, m := range []procs.Mode{procs.Procedure, procs.Frames, "compiled"} {
		fmt.Println(m, m.Validate())
	}
	// Output:
	// procedure <nil>
	// frames <nil>
	// compiled tpce: mode "compiled", want procedure or frames
}
