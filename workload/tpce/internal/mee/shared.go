package mee

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
)

// Shared is one emulator for every worker, behind a mutex, handing out
// at most a fixed number of works at a time: a work is in flight from
// the Due that hands it out to its Done. With one delivery it is DBT-5's
// market, which sends one Trade-Result at a time. It is safe for
// concurrent use.
//
// While every delivery is in flight, Due hands out nothing and NextDue
// still reports the earliest work ready, so a worker waiting on it
// polls until a Done frees a delivery.
type Shared struct {
	mu         sync.Mutex
	e          *MEE
	deliveries int
}

var _ Emulator = (*Shared)(nil)

// NewShared returns the shared emulator with deliveries works in flight
// at most (at least 1).
func NewShared(m *gen.Model, r *gen.Rand, deliveries int) *Shared {
	return &Shared{e: New(m, r), deliveries: max(deliveries, 1)}
}

// Submit implements Emulator.
func (s *Shared) Submit(o Order, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.e.Submit(o, now)
}

// Release implements Emulator.
func (s *Shared) Release(orders []Order, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.e.Release(orders, now)
}

// Due implements Emulator: the works due at now, as many as deliveries
// are free.
func (s *Shared) Due(now time.Time) []Work {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.e.due(now, max(s.deliveries-s.e.stats.InFlight, 0))
}

// Done implements Emulator: it frees w's delivery.
func (s *Shared) Done(w Work, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.e.Done(w, now)
}

// NextDue implements Emulator.
func (s *Shared) NextDue() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.e.NextDue()
}

// Flush implements Emulator. Like Due, it hands nothing out while every
// delivery is in flight: the caller asks again.
func (s *Shared) Flush(now time.Time) []Work {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.e.stats.InFlight >= s.deliveries {
		return nil
	}
	return s.e.Flush(now)
}

// Stats implements Emulator.
func (s *Shared) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.e.Stats()
}

// Mode is which emulators a run's workers use.
type Mode struct {
	// Shared is false for an emulator per worker; true for one for all,
	// with Deliveries works in flight at most.
	Shared     bool
	Deliveries int
}

// ErrMode is returned by ParseMode for a value it does not know.
var ErrMode = errors.New(`--mee: want "worker", "shared" or "shared:N" (N ≥ 1)`)

// ParseMode reads the --mee option: "worker" (the default, also "" and
// "per-worker") for an emulator per worker; "shared" for DBT-5's single emulator with one
// delivery; "shared:N" for one emulator with N deliveries.
func ParseMode(s string) (Mode, error) {
	switch {
	case s == "" || s == "worker" || s == "per-worker":
		return Mode{}, nil
	case s == "shared":
		return Mode{Shared: true, Deliveries: 1}, nil
	case strings.HasPrefix(s, "shared:"):
		n, err := strconv.Atoi(strings.TrimPrefix(s, "shared:"))
		if err == nil && n >= 1 {
			return Mode{Shared: true, Deliveries: n}, nil
		}
	}
	return Mode{}, fmt.Errorf("%w: %q", ErrMode, s)
}

// String is the mode as ParseMode reads it.
func (m Mode) String() string {
	switch {
	case !m.Shared:
		return "worker"
	case m.Deliveries <= 1:
		return "shared"
	}
	return "shared:" + strconv.Itoa(m.Deliveries)
}

// streamTag names the emulators' random streams (gen.NewRand's tag).
const streamTag = 0x4d4545 // "MEE"

// NewEmulators returns the emulators of workers workers: each its own
// in worker mode, all the same Shared one in shared mode. Worker i's
// (or the shared one's) random stream is (seed, streamTag, i).
func NewEmulators(m *gen.Model, mode Mode, workers int, seed uint64) []Emulator {
	out := make([]Emulator, workers)
	if mode.Shared {
		s := NewShared(m, gen.NewRand(seed, streamTag, 0), mode.Deliveries)
		for i := range out {
			out[i] = s
		}
		return out
	}
	for i := range out {
		out[i] = New(m, gen.NewRand(seed, streamTag, uint64(i)))
	}
	return out
}
