package gen_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/dbarena/dbarena/workload/tpcc/internal/gen"
	"github.com/dbarena/dbarena/workload/tpcc/internal/schema"
)

// A loader asks for each table of each warehouse; the sources are
// independent, so warehouses can load in parallel.
func Example() {
	c := gen.Config{Seed: 1, Warehouses: 2, Now: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	if errs := c.Validate(); len(errs) > 0 {
		panic(errs)
	}
	src := c.Rows(schema.NewOrder, 2)
	n := 0
	for src.Next() {
		row, err := src.Values()
		if err != nil {
			panic(err)
		}
		if n == 0 {
			fmt.Println("first new_order row:", row)
		}
		n++
	}
	if err := src.Err(); err != nil {
		panic(err)
	}
	fmt.Println(n, "rows; RowCount says", c.RowCount(schema.NewOrder, 2))
	fmt.Println("customers per warehouse:", c.RowCount(schema.Customer, 2))
	// Output:
	// first new_order row: [2101 1 2]
	// 9000 rows; RowCount says 9000
	// customers per warehouse: 30000
}

func ExampleLastName() {
	fmt.Println(gen.LastName(0), gen.LastName(40), gen.LastName(371), gen.LastName(999))
	// Output: BARBARBAR BARPRESBAR PRICALLYOUGHT EINGEINGEING
}

// The run phase draws its constants C-Run from those the data was loaded
// with, then picks customers by last name with them.
func ExampleRunConstants() {
	load := gen.LoadConstants(1)
	r := rand.New(rand.NewPCG(1, 2))
	run := gen.RunConstants(load, r)
	d := run.CLast - load.CLast
	if d < 0 {
		d = -d
	}
	fmt.Println(d >= 65 && d <= 119 && d != 96 && d != 112)
	name := gen.RandomLastName(r, run)
	fmt.Println(len(name) >= 9 && len(name) <= 15)
	// Output:
	// true
	// true
}
