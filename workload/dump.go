package workload

import (
	"context"
	"io"
)

// Dumper is implemented by workloads that can write the initial data
// prepare would load to a file, so that an engine's own bulk-load tool
// (psql's \copy, a program of insertMany calls) can load exactly the same
// rows and be timed against dbarena's load. DumpFormat says what the file
// holds; Dump writes it to w and returns the number of rows written.
// Dump reads only the options that define the data (DataOptioner).
type Dumper interface {
	DumpFormat() string
	Dump(ctx context.Context, w io.Writer) (rows int64, err error)
}
