package jsondoc_test

import (
	"fmt"

	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// Enc writes a document by hand into a reused buffer, as compact JSON
// or as the BSON MongoDB stores for that JSON.
func ExampleEnc() {
	var e jsondoc.Enc
	e.Reset(nil, false)
	e.Obj()
	e.Str("kind", "commit")
	e.Int("time_us", 1732206349000167)
	e.Key("langs")
	e.Arr()
	e.ElemStr("en")
	e.EndArr()
	e.End()
	fmt.Println(string(e.B))
	// Output: {"kind":"commit","time_us":1732206349000167,"langs":["en"]}
}
