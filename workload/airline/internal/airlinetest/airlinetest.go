// Package airlinetest holds what the tests of workload/airline and of its
// MongoDB implementation share: the checks on a run's bookings and on the
// problems and option errors the workload reports.
package airlinetest

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
)

// WantRun fails the test unless res, a run of 16 threads on 20 schedules
// under isolation, counted bookings without errors, and reports an error
// if retries, bookings that conflict, were expected and none were counted.
func WantRun(t *testing.T, res *result.Run, retries bool, isolation string) {
	t.Helper()
	if res.Transactions == 0 || res.Errors != 0 {
		t.Fatalf("%d bookings, %d errors", res.Transactions, res.Errors)
	}
	if retries && res.Retries == 0 {
		t.Errorf("no retries under %s with 16 threads on 20 schedules", isolation)
	}
}

// WantBooked reports an error unless the seats booked and the sum of the
// audit counts, occupied, are every booking res committed and nothing else
// (bookings of its 16 threads in flight when the phase ended commit too).
func WantBooked(t *testing.T, res *result.Run, seats, occupied int64) {
	t.Helper()
	if seats < res.Transactions || seats > res.Transactions+16 || occupied != seats {
		t.Errorf("%d seats, %d occupied, %d bookings counted", seats, occupied, res.Transactions)
	}
}

// WantProblem reports an error unless probs, what the check found after
// the data was corrupted by what, name the check want; when want is
// counted, the check that reports (schedule, day) pairs, its problem must
// report exactly one pair.
func WantProblem(t *testing.T, what string, probs []workload.Problem, want, counted string) {
	t.Helper()
	var names []string
	for _, p := range probs {
		names = append(names, p.Check)
	}
	if !strings.Contains(strings.Join(names, "; "), want) {
		t.Errorf("after %s: problems %q, want %q", what, names, want)
	}
	if want == counted {
		if n := PairsInAll(t, probs, counted); n != 1 {
			t.Errorf("after %s: %d (schedule, day) pairs reported, want 1", what, n)
		}
	}
}

var inAll = regexp.MustCompile(`\((\d+) \(schedule, day\) pairs? in all\)$`)

// PairsInAll finds the problem named check and returns the number of
// (schedule, day) pairs its Detail reports, or -1 when there is no such
// problem.
func PairsInAll(t *testing.T, probs []workload.Problem, check string) int64 {
	t.Helper()
	for _, p := range probs {
		if p.Check != check {
			continue
		}
		m := inAll.FindStringSubmatch(p.Detail)
		if m == nil {
			t.Fatalf("problem %q: detail %q gives no count of pairs", check, p.Detail)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	return -1
}

// WantOptionError reports an error unless err is a workload.OptionError
// naming flag and value, and its message says --flag value.
func WantOptionError(t *testing.T, err error, flag, value string) {
	t.Helper()
	var oe *workload.OptionError
	if !errors.As(err, &oe) || oe.Flag != flag || oe.Value != value || !strings.Contains(err.Error(), "--"+flag+" "+value) {
		t.Errorf("got %v; want an OptionError naming --%s %s", err, flag, value)
	}
}

// Connect opens a connection of e, closed at the end of the test.
func Connect(t *testing.T, e engine.Engine) engine.Conn {
	t.Helper()
	c, err := e.Connect(context.Background())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
