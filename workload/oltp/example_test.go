package oltp_test

import (
	"fmt"

	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/oltp"
)

// Configure oltp_read_write with sysbench-style flags and list its options.
func Example() {
	m, _ := workload.Lookup("oltp_read_write")
	w := m.New()
	if err := w.Define().Options.Parse([]string{"--tables=4", "--table_size=100000", "--rand-type=uniform"}); err != nil {
		fmt.Println(err)
		return
	}
	spec := w.Define()
	fmt.Println("problems:", len(spec.Validate()))
	opts := workload.OptionValues(w)
	fmt.Println(opts["tables"], opts["table-size"], opts["rand-type"], opts["point-selects"])
	fmt.Println(spec.Ops[0].Name)
	// Output:
	// problems: 0
	// 4 100000 uniform 10
	// oltp_read_write
}
