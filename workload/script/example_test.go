package script_test

import (
	"fmt"

	"github.com/dbarena/dbarena/workload/script"
)

func Example() {
	w := script.New()
	if err := w.Define().Options.Parse([]string{"--builtin", "tpcb-like@9", "--builtin", "select-only", "-D", "x=1"}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Define().Validate())
	for _, op := range w.Define().Ops {
		fmt.Println(op.Name)
	}
	text, _ := script.Builtin("select-only")
	fmt.Print(text)
	// Output:
	// []
	// tpcb-like
	// select-only
	// \set aid random(1, 100000 * :scale)
	// SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
}
