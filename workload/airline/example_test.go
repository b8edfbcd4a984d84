package airline_test

import (
	"fmt"

	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/airline"
)

// Configure the booking for MongoDB without transactions; an isolation
// level makes no sense there and is refused, naming the flag.
func Example() {
	m, _ := workload.Lookup("airline")
	w := m.New()
	if err := w.Flags().Parse([]string{"--transactions=off", "--day-range=1", "--isolation=serializable"}); err != nil {
		fmt.Println(err)
		return
	}
	for _, err := range w.(workload.Validator).Validate() {
		fmt.Println(err)
	}
	opts := workload.OptionValues(w)
	fmt.Println(opts["transactions"], opts["day-range"], opts["max-retries"])
	// Output:
	// --isolation serializable: needs --transactions on: without transactions there is no transaction isolation
	// off 1 10
}
