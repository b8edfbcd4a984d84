package airline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// NewRand is a worker's random source, seeded from its
// workload.WorkerEnv.Seed: every family draws its bookings from it.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xb00c)) }

// worker books tickets on its own connection.
type worker struct {
	w *Airline
	c engine.SQLConn
	q *workload.Queries
	r *rand.Rand
	// sleep is the worker's WorkerEnv.Sleep (--booking-sleep).
	sleep func(context.Context, time.Duration) bool

	schedule, seat, payment, audit engine.Stmt
	b                              engine.Batch

	user *int64 // the last user id handed out (Users.Seq)
	// The current booking's input, kept for Replay.
	in Booking
}

// Booking is one booking's input: a new user id, a schedule and a day
// (yyyymmdd). It is the same on every engine family.
type Booking struct {
	User, Schedule, Day int64
}

// NextBooking hands out the next user id after *user and draws a booking
// for it: a random schedule and, as the study picks it, the day today +
// (now in ms mod --day-range) days. The input is the same on every engine.
func (w *Airline) NextBooking(r *rand.Rand, user *int64) (Booking, error) {
	*user++
	if *user&(1<<bookingBits-1) == 0 {
		return Booking{}, fmt.Errorf("airline: a worker ran out of user ids (%d bookings in one run)", 1<<bookingBits)
	}
	now := time.Now()
	offset := now.UnixMilli() % int64(w.opts.dayRange)
	return Booking{User: *user, Schedule: 1 + r.Int64N(int64(w.opts.schedules)), Day: dayNumber(now.AddDate(0, 0, int(offset)))}, nil
}

// Amount is what a booking pays: 42 per minute of flight, at least 42.
func Amount(durationMinutes int64) float64 { return math.Max(42, float64(durationMinutes)*42) }

// Next books a seat for a new user on a random schedule and day.
func (k *worker) Next(ctx context.Context) (int, error) {
	in, err := k.w.NextBooking(k.r, k.user)
	if err != nil {
		return 0, err
	}
	k.in = in
	return k.Replay(ctx)
}

// Replay runs the current booking: one transaction, rolled back on error.
func (k *worker) Replay(ctx context.Context) (int, error) {
	if err := k.book(ctx); err != nil {
		// The booking's error is what counts (and is classified for the
		// retry); a failing ROLLBACK after it says nothing new.
		k.q.Other++
		_ = k.c.Rollback(context.WithoutCancel(ctx))
		return 0, err
	}
	return 0, nil
}

func (k *worker) book(ctx context.Context) error {
	in := k.in
	b := &k.b
	b.Reset()
	var duration, capacity int64
	b.Begin()
	b.QueryRow(k.schedule, []any{in.Schedule}, &duration, &capacity)
	k.q.Other++
	k.q.Reads++
	if err := b.Send(ctx, k.c); err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	b.Reset()
	b.Exec(k.seat, in.User, in.Schedule, in.Day)
	b.Exec(k.payment, in.User, Amount(duration), now)
	b.Exec(k.audit, in.Schedule, in.Day, now)
	k.q.Writes += 3
	if k.w.opts.bookingSleep == 0 {
		b.Commit()
		k.q.Other++
		return b.Send(ctx, k.c)
	}
	if err := b.Send(ctx, k.c); err != nil {
		return err
	}
	if !k.sleep(ctx, k.w.opts.bookingSleep) && ctx.Err() != nil {
		return ctx.Err()
	}
	k.q.Other++
	return k.c.Commit(ctx)
}
