package timing_test

import (
	"fmt"
	"time"

	"github.com/dbarena/dbarena/runner/timing"
)

// ParseStages reads --rate-stages: linear ramps from one target rate to
// the next; the stages' total is the run's length (warm-up included).
func ExampleParseStages() {
	stages, err := timing.ParseStages("30s:100,2m:1000,30s:0")
	if err != nil {
		panic(err)
	}
	rc := timing.RateConfig{Stages: stages, Arrival: timing.ArrivalUniform}
	o := timing.NewOpen(rc)
	fmt.Println(timing.FormatStages(stages), rc.StagesTotal())
	fmt.Printf("mean rate over the first stage %.0f/s, over the second %.0f/s\n",
		o.Offered(0, 30*time.Second), o.Offered(30*time.Second, 150*time.Second))
	// Output:
	// 30s:100,2m0s:1000,30s:0 3m0s
	// mean rate over the first stage 50/s, over the second 550/s
}
