package airline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/airline"
)

// Configure the booking without transactions (an option for MongoDB); a
// run's isolation level makes no sense then and is refused before any
// work, naming the flag.
func Example() {
	m, _ := workload.Lookup("airline")
	w := m.New()
	spec := w.Define()
	if err := spec.Options.Parse([]string{"--transactions=off", "--day-range=1"}); err != nil {
		fmt.Println(err)
		return
	}
	for _, err := range spec.Validate() {
		fmt.Println(err)
	}
	opts := workload.OptionValues(w)
	fmt.Println(opts["transactions"], opts["day-range"])

	dir, _ := os.MkdirTemp("", "dbarena-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	target, _ := engine.ParseTarget("sqlite://"+filepath.Join(dir, "x.db"), "", nil)
	eng, err := engine.Open(ctx, target, engine.Options{})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	_, err = runner.Run(ctx, eng, w, runner.Config{Threads: 1, Duration: time.Second, Isolation: engine.Serializable}, nil)
	fmt.Println(err)
	// Output:
	// off 1
	// --isolation serializable: needs --transactions on: without transactions there is no transaction isolation
}
