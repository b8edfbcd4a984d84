package runner

import (
	"errors"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
)

// Intervals with nothing ended while other work took the host are not a
// stall: the same run without their flags is one.
func TestStalledLeavesOutDisturbed(t *testing.T) {
	run := func(disturbed []string) *result.Run {
		r := &result.Run{LatencyMS: histogram.Latency{P50: 2}}
		for i := range 12 {
			iv := result.Interval{}
			if i < 3 {
				iv.Transactions = 70
			} else {
				iv.Disturbed = disturbed
			}
			r.Intervals = append(r.Intervals, iv)
		}
		return r
	}
	if err := stalled(run(nil), time.Second); !errors.Is(err, ErrStalled) {
		t.Fatalf("9 empty intervals of 12, undisturbed: %v, want a stall", err)
	}
	if err := stalled(run([]string{"other"}), time.Second); err != nil {
		t.Errorf("9 empty intervals of 12 while other work took the host: %v, want no stall", err)
	}
}
