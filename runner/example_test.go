package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/oltp"
)

// Prepare a workload on an embedded SQLite file, run it for a second with
// two workers, and read the result.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "dbarena-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	target, _ := engine.ParseTarget("sqlite://"+filepath.Join(dir, "x.db"), "", nil)
	eng, err := engine.Open(ctx, target, engine.Options{})
	if err != nil {
		panic(err)
	}
	defer eng.Close()

	m, _ := workload.Lookup("oltp_read_write")
	w := m.New()
	_ = w.Define().Options.Parse([]string{"--tables", "2", "--table-size", "1000"})
	stats, err := load.Prepare(ctx, eng, w, load.PrepareConfig{})
	if err != nil {
		panic(err)
	}
	fmt.Println("rows loaded:", stats.Rows)

	run, err := runner.Run(ctx, eng, w, runner.Config{Threads: 2, Duration: time.Second, Seed: 1}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Status, run.Ops[0].Name, run.Transactions > 0)
	fmt.Println("statements per transaction:", run.Queries/run.Transactions)
	// Output:
	// rows loaded: 2000
	// complete oltp_read_write true
	// statements per transaction: 20
}
