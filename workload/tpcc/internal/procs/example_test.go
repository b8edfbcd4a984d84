package procs_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/workload/tpcc/internal/procs"
)

// Install the transactions once, then prepare their calls on each
// worker's connection and run one transaction per call. (Not run by go
// test: it needs a loaded TPC-C database.)
func Example() {
	ctx := context.Background()
	target, err := engine.ParseTarget("postgres://bench@127.0.0.1:5432/bench?sslmode=disable", "", os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	eng, err := engine.Open(ctx, target, engine.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	c, err := engine.ConnectSQL(ctx, eng)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	if err := procs.Install(ctx, c); err != nil {
		log.Fatal(err) // procs.ErrUnsupported on SQLite
	}
	k, err := procs.Prepare(ctx, c)
	if err != nil {
		log.Fatal(err)
	}
	rolledBack, err := k.NewOrderTx(ctx, 1, 3, 42,
		[]int64{12, 5077, 33}, []int64{1, 1, 2}, []int64{5, 1, 10}, time.Now())
	switch {
	case err != nil && c.Dialect().Classify(err) == engine.ClassDeadlock:
		// retry
	case err != nil:
		log.Fatal(err)
	case rolledBack:
		fmt.Println("unused item: rolled back, as the specification intends")
	}
	low, err := k.StockLevelTx(ctx, 1, 3, 15)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("low stock:", low)
}
