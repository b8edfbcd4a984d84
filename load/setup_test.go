package load_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/oltp"
)

func oltpWorkload(t *testing.T, args ...string) workload.Workload {
	t.Helper()
	m, ok := workload.Lookup("oltp_read_write")
	if !ok {
		t.Fatal("oltp_read_write is not registered")
	}
	w := m.New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	return w
}

func countTables(t *testing.T, eng engine.Engine) int64 {
	t.Helper()
	c, err := engine.ConnectSQL(context.Background(), eng)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int64
	if err := c.QueryRow(context.Background(), "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'sbtest%'", nil, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A prepare stopped half-way (Ctrl-C) leaves no table behind, and a later
// prepare starts from scratch.
func TestPrepareInterruptedLeavesNothing(t *testing.T) {
	eng, err := engine.Open(context.Background(), testdb.SQLite(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	w := oltpWorkload(t, "--tables", "4", "--table-size", "2000000")
	ctx, cancel := context.WithCancel(context.Background())
	progressed := false
	_, err = load.Prepare(ctx, eng, w, load.PrepareConfig{
		LoadThreads:   2,
		ProgressEvery: 20 * time.Millisecond,
		Progress: func(p load.LoadProgress) {
			if p.Rows > 0 && !progressed {
				progressed = true
				cancel()
			}
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Prepare = %v, want context.Canceled", err)
	}
	var rb *load.RolledBackError
	if !errors.As(err, &rb) || !slices.Equal(rb.Dropped, []string{"sbtest1", "sbtest2", "sbtest3", "sbtest4"}) || len(rb.Left) != 0 {
		t.Errorf("Prepare = %v, want a RolledBackError naming the 4 tables it dropped", err)
	}
	if !progressed {
		t.Fatal("the load never made progress")
	}
	if n := countTables(t, eng); n != 0 {
		t.Errorf("%d sbtest tables left after an interrupted prepare", n)
	}
	small := oltpWorkload(t, "--tables", "2", "--table-size", "100")
	stats, err := load.Prepare(context.Background(), eng, small, load.PrepareConfig{})
	if err != nil || stats.Rows != 200 || stats.Tables != 2 {
		t.Fatalf("second prepare: %+v, %v", stats, err)
	}
	if _, err := load.Prepare(context.Background(), eng, small, load.PrepareConfig{}); !errors.Is(err, load.ErrAlreadyPrepared) {
		t.Errorf("third prepare = %v, want ErrAlreadyPrepared", err)
	}
	cleaned, err := load.Cleanup(context.Background(), eng, small)
	if err != nil || len(cleaned.Dropped) != 2 {
		t.Errorf("Cleanup = %v, %v", cleaned.Dropped, err)
	}
	if n := countTables(t, eng); n != 0 {
		t.Errorf("%d sbtest tables left after cleanup", n)
	}
}

// Prepare reports each table's size on disk, in creation order with the
// rows it loaded, and where the loaders' time went.
func TestPrepareStatsSizesAndTimes(t *testing.T) {
	eng, err := engine.Open(context.Background(), testdb.SQLite(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	w := oltpWorkload(t, "--tables", "3", "--table-size", "5000")
	stats, err := load.Prepare(context.Background(), eng, w, load.PrepareConfig{LoadThreads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if stats.SizeErr != nil {
		t.Fatalf("SizeErr = %v", stats.SizeErr)
	}
	if len(stats.Sizes) != 3 {
		t.Fatalf("Sizes = %+v, want 3 tables", stats.Sizes)
	}
	for i, s := range stats.Sizes {
		if want := "sbtest" + string(rune('1'+i)); s.Table != want {
			t.Errorf("table %d is %s, want %s", i, s.Table, want)
		}
		// sysbench's c and pad alone are 180 bytes a row.
		if s.Rows != 5000 || s.Data < 5000*180 || s.Indexes <= 0 || s.Total != s.Data+s.Indexes {
			t.Errorf("%s: %+v, want 5000 rows, at least %d data bytes, index bytes (k_%d), total = data + indexes", s.Table, s, 5000*180, i+1)
		}
	}
	lt := stats.Times
	if lt.Generate <= 0 || lt.Write <= 0 || lt.Finish <= 0 || lt.ForeignKeys < 0 {
		t.Errorf("Times = %+v, want generation, writing and index builds timed", lt)
	}
	if g, wr, f := lt.Shares(); g+wr+f < 0.999 || g+wr+f > 1.001 {
		t.Errorf("Shares() = %v, %v, %v; want them to add up to 1", g, wr, f)
	}
}
