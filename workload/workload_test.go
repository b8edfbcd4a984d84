package workload_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbarena/dbarena/workload"
)

// A Spec.Check's reports reach the CheckProgress its context carries, and
// nothing happens without one.
func TestCheckProgress(t *testing.T) {
	workload.ReportCheck(context.Background(), 1, 2, "a") // no progress: no effect
	var got []string
	ctx := workload.WithCheckProgress(context.Background(), func(done, total int, name string) {
		got = append(got, fmt.Sprintf("%d/%d %s", done, total, name))
	})
	workload.ReportCheck(ctx, 1, 2, "a")
	workload.ReportCheck(ctx, 2, 2, "b")
	if fmt.Sprint(got) != "[1/2 a 2/2 b]" {
		t.Errorf("reports %v", got)
	}
}
