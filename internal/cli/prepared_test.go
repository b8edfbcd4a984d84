package cli

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/load"
)

func TestHumanBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 kB"},
		{8192, "8.0 kB"},
		{12_897_485, "12.3 MB"},
		{1<<20 - 1, "1.0 MB"}, // not 1024.0 kB
		{3 << 30, "3.0 GB"},
		{5 << 40, "5.0 TB"},
		{2048 << 40, "2048.0 TB"},
	} {
		if got := humanBytes(tc.n); got != tc.want {
			t.Errorf("humanBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func Example_writePrepared() {
	size := func(name string, rows, data, indexes int64) load.TableStat {
		return load.TableStat{TableSize: engine.TableSize{Table: name, Data: data, Indexes: indexes, Total: data + indexes}, Rows: rows}
	}
	writePrepared(os.Stdout, load.PrepareStats{
		Tables: 3, Rows: 3_000_001, Load: 20 * time.Second, Indexes: 2 * time.Second, Duration: 22 * time.Second,
		Times: load.LoadTimes{Generate: 28 * time.Second, Write: 40 * time.Second, Finish: 12 * time.Second, ForeignKeys: 1500 * time.Millisecond},
		Sizes: []load.TableStat{
			size("warehouse", 1, 8192, 16384),
			size("order_line", 3_000_000, 320_000_000, 67_000_000),
			size("history", 0, 0, 0),
		},
		SizeNote: "InnoDB's sizes are estimates",
		SizeTime: 1423 * time.Millisecond,
	}, 4)
	writePrepared(os.Stdout, load.PrepareStats{Tables: 1, Rows: 10, Load: time.Second, Duration: time.Second,
		Times:   load.LoadTimes{Generate: time.Millisecond, Write: 3 * time.Millisecond},
		SizeErr: errors.New("the engine does not report table sizes: x")}, 1)
	// Output:
	// prepared 3 tables, 3000001 rows in 22s (rows in after 20s, 150000 rows/s; indexes finished 2s later)
	// loader time 1m20s (4 loaders): generating rows 35%, writing them 50%, indexes and keys 15%; then foreign keys 1.5s
	// table          rows      data  indexes     total
	// warehouse         1    8.0 kB  16.0 kB   24.0 kB
	// order_line  3000000  305.2 MB  63.9 MB  369.1 MB
	// history           0       0 B      0 B       0 B
	// total       3000001  305.2 MB  63.9 MB  369.1 MB
	// note: InnoDB's sizes are estimates
	// sizes read in 1.423s
	// prepared 1 tables, 10 rows in 1s (rows in after 1s, 10 rows/s; indexes finished 0s later)
	// loader time 4ms (1 loader): generating rows 25%, writing them 75%, indexes and keys 0%
	// sizes on disk: not available (the engine does not report table sizes: x)
}
