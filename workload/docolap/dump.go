package docolap

import (
	"context"
	"io"

	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// dumpFormat is what Dump writes (Spec.Dump).
const dumpFormat = "the events table in PostgreSQL's COPY text format, one event a line: its id, a tab, and its JSON document " +
	"(the bytes prepare loads, every backslash doubled); psql loads it with \\copy events (id, doc) FROM 'FILE'"

// dump writes (Spec.Dump) the events the options ask for, in order, as
// dumpFormat says, exactly the rows prepare loads on every engine (the
// id column and the doc document). Events are made by as many goroutines
// as there are processors and written in order.
// The normalized form (--normalized) has no such file: it is refused,
// naming the flag, before anything is written.
func (w *Docolap) dump(ctx context.Context, out io.Writer) (int64, error) {
	if w.Normalized() {
		return 0, &workload.OptionError{Flag: "normalized", Value: "true", Err: "dump writes the JSON events table only: leave --normalized out"}
	}
	return DumpEvents(ctx, w.Generator(), out)
}

// DumpEvents writes g's events to out as the Spec's Dump does.
func DumpEvents(ctx context.Context, g *Generator, out io.Writer) (int64, error) {
	return jsondoc.Dump(ctx, g.Events(), g.ID, g.AppendEvent, out)
}
