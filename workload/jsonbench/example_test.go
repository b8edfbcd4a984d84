package jsonbench_test

import (
	"fmt"
	"time"

	"github.com/dbarena/dbarena/workload/jsonbench"
)

// A generator makes each event from the seed and its index alone: here
// the first of a million, what the queries read of it, and the
// capture's rate at its first and its busiest hour.
func Example() {
	g := jsonbench.NewGenerator(0, 1000000)
	ev := g.Event(0)
	fmt.Println(ev.Kind, ev.Operation, ev.Collection.NSID(), time.UnixMicro(ev.TimeUS).UTC().Format(time.DateTime))
	fmt.Printf("%.0f and %.0f events a second at 16:00 and 23:00 UTC\n", jsonbench.HourRate(16), jsonbench.HourRate(23))
	// Output:
	// commit create app.bsky.graph.follow 2024-11-21 16:25:49
	// 1228 and 1324 events a second at 16:00 and 23:00 UTC
}
