package airline

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine/mysql"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

func parse(t *testing.T, args ...string) *Airline {
	t.Helper()
	w := New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestValidate(t *testing.T) {
	if errs := parse(t).Define().Validate(); len(errs) != 0 {
		t.Errorf("defaults: %v", errs)
	}
	errs := parse(t, "--day-range", "0", "--transactions", "sometimes", "--schedules", "0").Define().Validate()
	// Isolation and retries are run options (the runner's) now.
	maxRetries, backoff, backoffMax := -1, 2*time.Second, time.Second
	errs = append(errs, runner.Config{Threads: 1, Duration: time.Second, Isolation: "snapshot",
		Retry: runner.RetryOverride{MaxRetries: &maxRetries, Backoff: &backoff, BackoffMax: &backoffMax}}.Validate()...)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{"--day-range 0:", "--isolation snapshot:", "--transactions sometimes: must be on or off", "--schedules 0:", "--max-retries -1:", "--retry-backoff 2s: must be between 0 and --retry-backoff-max (1s)"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
}

// The reference data depends on the seed only, and every schedule's
// aircraft exists.
func TestReferenceData(t *testing.T) {
	a, b := generate(7, 200, 15000), generate(7, 200, 15000)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different data")
	}
	if c := generate(8, 200, 15000); reflect.DeepEqual(a.schedules[:10], c.schedules[:10]) {
		t.Error("another seed gave the same schedules")
	}
	iata := map[string]bool{}
	for _, ac := range a.aircraft {
		if iata[ac[3].(string)] {
			t.Fatalf("IATA code %s twice", ac[3])
		}
		iata[ac[3].(string)] = true
		if c := ac[4].(int64); c < 68 || c > 615 {
			t.Errorf("aircraft %v: capacity %d", ac[1], c)
		}
	}
	for _, s := range a.schedules {
		if !iata[s[9].(string)] {
			t.Fatalf("schedule %v flies unknown aircraft %v", s[0], s[9])
		}
		if s[1] == s[2] {
			t.Errorf("schedule %v from and to %v", s[0], s[1])
		}
		if d := s[10].(int64); d < 35 || d > 14*60 {
			t.Errorf("schedule %v: duration %d min", s[0], d)
		}
	}
}

func TestUpsertSQL(t *testing.T) {
	pg, _ := upsertSQL(postgres.Dialect{})
	lite, _ := upsertSQL(sqlite.Dialect{})
	if !strings.Contains(pg, `ON CONFLICT (schedule_id, "day") DO UPDATE SET seats_occupied = audit.seats_occupied + 1`) || !strings.Contains(lite, "ON CONFLICT") {
		t.Errorf("postgres %q\nsqlite %q", pg, lite)
	}
	my, _ := upsertSQL(mysql.Dialect{})
	if !strings.Contains(my, "ON DUPLICATE KEY UPDATE seats_occupied = seats_occupied + 1") {
		t.Errorf("mysql %q", my)
	}
}

func TestDayNumber(t *testing.T) {
	if got := dayNumber(time.Date(2026, 11, 21, 23, 59, 0, 0, time.UTC)); got != 20261121 {
		t.Errorf("dayNumber = %d", got)
	}
}

// A worker rebuilt after a lost connection goes on with its user ids; a
// new run starts the next epoch, asking for the highest user id once.
func TestUsers(t *testing.T) {
	w := New()
	asked := 0
	highest := func(n int64) func() (int64, error) {
		return func() (int64, error) { asked++; return n, nil }
	}
	run := new(Users)
	p, err := run.Seq(3, highest(5<<epochShift|77))
	if err != nil || *p != 6<<epochShift|3<<bookingBits {
		t.Fatalf("worker 3 starts at %#x (%v)", *p, err)
	}
	b1, err := w.NextBooking(NewRand(1), p)
	if err != nil {
		t.Fatal(err)
	}
	if q, _ := run.Seq(3, highest(0)); q != p || *q != b1.User {
		t.Errorf("worker 3 rebuilt: last user %#x, want %#x", *q, b1.User)
	}
	if q, _ := run.Seq(4, highest(0)); q == p || *q != 6<<epochShift|4<<bookingBits {
		t.Errorf("worker 4 starts at %#x, sharing worker 3's ids: %v", *q, q == p)
	}
	if asked != 1 {
		t.Errorf("the highest user id asked for %d times in one run, want once", asked)
	}
	next := new(Users)
	if _, err := next.Seq(3, func() (int64, error) { return 0, errors.New("gone") }); err == nil {
		t.Error("a failed ask for the highest user id: no error")
	}
	if p, _ := next.Seq(3, highest(b1.User)); *p != 7<<epochShift|3<<bookingBits {
		t.Errorf("next run: worker 3 starts at %#x", *p)
	}
}

// The booking reports no figures of its own.
func TestNoMetrics(t *testing.T) {
	w := New()
	r, err := w.Open(context.Background(), workload.RunEnv{})
	if err != nil {
		t.Fatal(err)
	}
	if m := w.Define().Metrics; len(m) != 0 || r.Metrics != nil {
		t.Errorf("Spec.Metrics %v, Run.Metrics set: %v", m, r.Metrics != nil)
	}
}
