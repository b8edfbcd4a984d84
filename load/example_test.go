package load_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/oltp"
)

// Prepare a workload on an embedded SQLite file, check it and clean it
// up again.
func ExamplePrepare() {
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
	stats, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 2})
	if err != nil {
		panic(err)
	}
	fmt.Println("tables:", stats.Tables, "rows loaded:", stats.Rows)

	problems, err := load.Check(ctx, eng, w)
	fmt.Println("problems:", len(problems), err)

	cleaned, err := load.Cleanup(ctx, eng, w)
	fmt.Println("dropped:", cleaned.Dropped, err)
	// Output:
	// tables: 2 rows loaded: 2000
	// problems: 0 <nil>
	// dropped: [sbtest1 sbtest2] <nil>
}
