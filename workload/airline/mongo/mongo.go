package mongo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	mopts "go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/airline"
)

func init() {
	workload.RegisterFamily("airline", engine.FamilyMongo, func(base workload.Workload) workload.Workload {
		return &Airline{base: base.(*airline.Airline)}
	})
}

// Airline is a workload, and its workers replay a booking.
var (
	_ workload.Workload = (*Airline)(nil)
	_ workload.Replayer = (*mongoWorker)(nil)
)

// Airline is the airline workload's implementation for MongoDB, built on
// the registered workload whose options it reads.
type Airline struct {
	base *airline.Airline
}

// Define is the registered workload's Spec (its options, tables, op,
// isolation levels and run defaults) with MongoDB's own install, which
// checks --transactions against the target, and check.
func (w *Airline) Define() workload.Spec {
	s := w.base.Define()
	s.Install = w.install
	s.Check = w.check
	return s
}

// Open starts a run on MongoDB: its workers share the run's user ids
// (airline.Users), which start after the highest user id booked before
// the run.
func (w *Airline) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	users := new(airline.Users)
	return &workload.Run{NewWorker: func(ctx context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
		if err := w.base.CheckWorker(env); err != nil {
			return nil, err
		}
		mc, err := mongo.ConnOf(conn)
		if err != nil {
			return nil, err
		}
		user, err := users.Seq(env.ID, func() (int64, error) { return highestUser(ctx, mc) })
		if err != nil {
			return nil, err
		}
		return w.newMongoWorker(mc, env, user), nil
	}}, nil
}

// install checks the options against the target: transactions need a
// replica set or a sharded cluster.
func (w *Airline) install(ctx context.Context, conn engine.Conn) error {
	mc, err := mongo.ConnOf(conn)
	if err != nil {
		return err
	}
	if !w.base.Transactions() {
		return nil
	}
	var hello struct {
		SetName string `bson:"setName"`
		Msg     string `bson:"msg"`
	}
	if err := mc.DB().Client().Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return fmt.Errorf("airline: hello: %w", err)
	}
	if hello.SetName == "" && hello.Msg != "isdbgrid" {
		return &workload.OptionError{Flag: "transactions", Value: "on",
			Err: "the target is a standalone mongod: MongoDB runs transactions on replica sets and sharded clusters only (or use --transactions off)"}
	}
	return nil
}

// check verifies the invariants the registered workload checks on SQL
// engines (mongoCheck).
func (w *Airline) check(ctx context.Context, conn engine.Conn) ([]workload.Problem, error) {
	mc, err := mongo.ConnOf(conn)
	if err != nil {
		return nil, err
	}
	return w.mongoCheck(ctx, mc)
}

// highestUser is the highest user id booked so far, 0 when none is.
func highestUser(ctx context.Context, mc *mongo.Conn) (int64, error) {
	var last struct {
		User int64 `bson:"user_id"`
	}
	err := mc.DB().Collection("seat").FindOne(ctx, bson.D{},
		mopts.FindOne().SetSort(bson.D{{Key: "user_id", Value: -1}}).SetProjection(bson.D{{Key: "user_id", Value: 1}, {Key: "_id", Value: 0}})).Decode(&last)
	if err != nil && !errors.Is(err, drv.ErrNoDocuments) {
		return 0, fmt.Errorf("airline: highest user id: %w", err)
	}
	return last.User, nil
}

// mongoWorker books tickets on MongoDB, operation for statement:
//
//	schedule ⋈ aircraft   aggregate [$match {_id}, $lookup aircraft by iata, $project duration, capacity]
//	seat                  insertOne {user_id, schedule_id, day}
//	payment               insertOne {user_id, amount, paid_at}
//	audit                 updateOne {schedule_id, day} {$inc seats_occupied, $set last_date}, upsert
//
// With --transactions on the four run in one transaction on the
// connection's session and --booking-sleep comes before the commit, as on
// the SQL engines; a failed booking is aborted and replayed by the runner
// (a write conflict is a TransientTransactionError). With --transactions
// off each operation runs alone: there is no commit to sleep before, so
// --booking-sleep comes before the last write, the audit upsert, and for
// its length the booking is half done (its seat and payment are in, the
// audit does not count them yet), the state an interrupted or failed
// booking leaves for good; a replay resumes at the operation that failed,
// since those before it cannot be undone.
//
// Statements are counted as on the SQL engines: the aggregate is a read,
// the inserts and the upsert writes, starting, committing or aborting a
// transaction other.
type mongoWorker struct {
	w  *airline.Airline
	mc *mongo.Conn
	q  *workload.Queries
	r  *rand.Rand
	tx bool
	// pause is the worker's WorkerEnv.Sleep (--booking-sleep).
	pause func(context.Context, time.Duration) bool

	schedule, seat, payment, audit *drv.Collection
	lookup, project                bson.D
	upsert                         *mopts.UpdateOneOptionsBuilder

	user *int64 // the last user id handed out (airline.Users.Seq)
	// The current booking's input, kept for Replay; without transactions
	// also how many of its steps are done and what its read returned.
	in       airline.Booking
	done     int
	duration int64
}

// newMongoWorker is a worker booking on mc, handing out the user ids
// after *user.
func (w *Airline) newMongoWorker(mc *mongo.Conn, env workload.WorkerEnv, user *int64) *mongoWorker {
	db := mc.DB()
	return &mongoWorker{
		w: w.base, mc: mc, q: env.Queries, r: airline.NewRand(env.Seed), tx: w.base.Transactions(), pause: env.Sleep,
		schedule: db.Collection("schedule"), seat: db.Collection("seat"), payment: db.Collection("payment"), audit: db.Collection("audit"),
		lookup: bson.D{{Key: "$lookup", Value: bson.D{
			{Key: "from", Value: "aircraft"}, {Key: "localField", Value: "aircraft_iata"}, {Key: "foreignField", Value: "iata"}, {Key: "as", Value: "aircraft"},
		}}},
		project: bson.D{{Key: "$project", Value: bson.D{
			{Key: "_id", Value: 0}, {Key: "duration_minutes", Value: 1},
			{Key: "capacity", Value: bson.D{{Key: "$first", Value: "$aircraft.capacity"}}},
		}}},
		upsert: mopts.UpdateOne().SetUpsert(true),
		user:   user,
	}
}

// Next books a seat for a new user on a random schedule and day.
func (k *mongoWorker) Next(ctx context.Context) (int, error) {
	in, err := k.w.NextBooking(k.r, k.user)
	if err != nil {
		return 0, err
	}
	k.in, k.done = in, 0
	return k.Replay(ctx)
}

// Replay runs the current booking again: a new transaction, aborted on
// error; without transactions, the operations not done yet.
func (k *mongoWorker) Replay(ctx context.Context) (int, error) {
	sctx := k.mc.Ctx(ctx)
	if !k.tx {
		return 0, k.bookAlone(sctx)
	}
	if err := k.mc.Session().StartTransaction(); err != nil {
		return 0, err
	}
	k.q.Other++
	if err := k.bookInTransaction(sctx); err != nil {
		// The booking's error is what counts (and is classified for the
		// retry); Abort ignores a failing abort.
		k.q.Other++
		k.mc.Abort(sctx)
		return 0, err
	}
	return 0, nil
}

func (k *mongoWorker) bookInTransaction(ctx context.Context) error {
	duration, err := k.readSchedule(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	if err := k.insertSeat(ctx); err != nil {
		return err
	}
	if err := k.insertPayment(ctx, duration, now); err != nil {
		return err
	}
	if err := k.upsertAudit(ctx, now); err != nil {
		return err
	}
	if err := k.sleep(ctx); err != nil {
		return err
	}
	k.q.Other++
	return k.mc.Commit(ctx)
}

// bookAlone runs the booking's operations not done yet, each on its own.
func (k *mongoWorker) bookAlone(ctx context.Context) error {
	for ; k.done < 5; k.done++ {
		var err error
		switch k.done {
		case 0:
			k.duration, err = k.readSchedule(ctx)
		case 1:
			err = k.insertSeat(ctx)
		case 2:
			err = k.insertPayment(ctx, k.duration, time.Now())
		case 3:
			err = k.sleep(ctx)
		case 4:
			err = k.upsertAudit(ctx, time.Now())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readSchedule reads the booking's schedule with its aircraft's capacity
// and returns the flight's duration in minutes.
func (k *mongoWorker) readSchedule(ctx context.Context) (int64, error) {
	k.q.Reads++
	cur, err := k.schedule.Aggregate(ctx, drv.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "_id", Value: k.in.Schedule}}}},
		k.lookup,
		k.project,
	})
	if err != nil {
		return 0, err
	}
	defer cur.Close(context.WithoutCancel(ctx))
	if !cur.Next(ctx) {
		if err := cur.Err(); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("airline: schedule %d not found", k.in.Schedule)
	}
	duration, ok := cur.Current.Lookup("duration_minutes").AsInt64OK()
	if _, hasCap := cur.Current.Lookup("capacity").AsInt64OK(); !ok || !hasCap {
		return 0, fmt.Errorf("airline: schedule %d: no duration or aircraft capacity in %v", k.in.Schedule, cur.Current)
	}
	return duration, nil
}

func (k *mongoWorker) insertSeat(ctx context.Context) error {
	k.q.Writes++
	_, err := k.seat.InsertOne(ctx, bson.D{{Key: "user_id", Value: k.in.User}, {Key: "schedule_id", Value: k.in.Schedule}, {Key: "day", Value: k.in.Day}})
	return err
}

func (k *mongoWorker) insertPayment(ctx context.Context, duration int64, now time.Time) error {
	k.q.Writes++
	_, err := k.payment.InsertOne(ctx, bson.D{{Key: "user_id", Value: k.in.User}, {Key: "amount", Value: airline.Amount(duration)}, {Key: "paid_at", Value: now}})
	return err
}

// upsertAudit counts the seat in its (schedule, day) document, creating
// it on the pair's first booking. Two first bookings racing outside a
// transaction do not fail: mongod retries an upsert that hits a duplicate
// key on the unique index its filter matches.
func (k *mongoWorker) upsertAudit(ctx context.Context, now time.Time) error {
	k.q.Writes++
	_, err := k.audit.UpdateOne(ctx,
		bson.D{{Key: "schedule_id", Value: k.in.Schedule}, {Key: "day", Value: k.in.Day}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "seats_occupied", Value: int64(1)}}}, {Key: "$set", Value: bson.D{{Key: "last_date", Value: now}}}},
		k.upsert)
	return err
}

// sleep waits --booking-sleep, or until ctx ends.
func (k *mongoWorker) sleep(ctx context.Context) error {
	d := k.w.BookingSleep()
	if d <= 0 {
		return nil
	}
	if !k.pause(ctx, d) && ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// mongoCheck verifies the registered workload's invariants with two
// aggregations, each a full outer join by grouping: seats and audit documents by (schedule,
// day), seats and payments by user. A $lookup would join one way only and
// per document; one $group over both collections ($unionWith) sees a pair
// or a user from either side in one pass. Violations are counted on the
// server ($facet) and a few are returned as examples, so the number of
// pairs a run without transactions got wrong is reported however large.
// Like the SQL checks it expects no bookings to be running.
func (w *Airline) mongoCheck(ctx context.Context, mc *mongo.Conn) ([]workload.Problem, error) {
	var probs []workload.Problem
	db := mc.DB()
	lit := func(v any) bson.D { return bson.D{{Key: "$literal", Value: v}} }
	facet := func(match bson.D, count any) bson.A {
		return bson.A{bson.D{{Key: "$match", Value: match}}, bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "n", Value: bson.D{{Key: "$sum", Value: count}}}}}}}
	}
	examples := func(match bson.D) bson.A {
		return bson.A{bson.D{{Key: "$match", Value: match}}, bson.D{{Key: "$limit", Value: airline.MaxExamples}}}
	}
	type count struct {
		N int64 `bson:"n"`
	}
	total := func(c []count) int64 {
		if len(c) == 0 {
			return 0
		}
		return c[0].N
	}

	// Seats and audit documents per (schedule, day).
	counted := bson.D{{Key: "audits", Value: bson.D{{Key: "$gt", Value: 0}}}}
	uncounted := bson.D{{Key: "audits", Value: 0}}
	var pairs []struct {
		Counted, Uncounted []struct {
			ID struct {
				Schedule int64 `bson:"s"`
				Day      int64 `bson:"d"`
			} `bson:"_id"`
			Seats    int64 `bson:"seats"`
			Occupied int64 `bson:"occupied"`
		}
		CountedN   []count `bson:"countedN"`
		UncountedN []count `bson:"uncountedN"`
	}
	if err := aggregate(ctx, db.Collection("seat"), drv.Pipeline{
		{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "s", Value: "$schedule_id"}, {Key: "d", Value: "$day"},
			{Key: "seats", Value: lit(1)}, {Key: "audits", Value: lit(0)}, {Key: "occupied", Value: lit(0)}}}},
		{{Key: "$unionWith", Value: bson.D{{Key: "coll", Value: "audit"}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "s", Value: "$schedule_id"}, {Key: "d", Value: "$day"},
				{Key: "seats", Value: lit(0)}, {Key: "audits", Value: lit(1)}, {Key: "occupied", Value: "$seats_occupied"}}}},
		}}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "s", Value: "$s"}, {Key: "d", Value: "$d"}}},
			{Key: "seats", Value: bson.D{{Key: "$sum", Value: "$seats"}}},
			{Key: "audits", Value: bson.D{{Key: "$sum", Value: "$audits"}}},
			{Key: "occupied", Value: bson.D{{Key: "$sum", Value: "$occupied"}}}}}},
		{{Key: "$match", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$or", Value: bson.A{
			bson.D{{Key: "$eq", Value: bson.A{"$audits", 0}}},
			bson.D{{Key: "$ne", Value: bson.A{"$occupied", "$seats"}}},
		}}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id.s", Value: 1}, {Key: "_id.d", Value: 1}}}},
		{{Key: "$facet", Value: bson.D{
			{Key: "counted", Value: examples(counted)}, {Key: "countedN", Value: facet(counted, 1)},
			{Key: "uncounted", Value: examples(uncounted)}, {Key: "uncountedN", Value: facet(uncounted, 1)},
		}}},
	}, &pairs); err != nil {
		return probs, fmt.Errorf("check %q: %w", airline.CheckAuditCounts, err)
	}
	if len(pairs) == 1 {
		p := pairs[0]
		if n := total(p.CountedN); n > 0 {
			var ex []string
			for _, r := range p.Counted {
				ex = append(ex, fmt.Sprintf("schedule %d, day %d: seats_occupied %d, seats booked %d", r.ID.Schedule, r.ID.Day, r.Occupied, r.Seats))
			}
			probs = append(probs, airline.Problem(airline.CheckAuditCounts, n, "(schedule, day) pair", ex))
		}
		if n := total(p.UncountedN); n > 0 {
			var ex []string
			for _, r := range p.Uncounted {
				ex = append(ex, fmt.Sprintf("schedule %d, day %d: %d seats, no audit document", r.ID.Schedule, r.ID.Day, r.Seats))
			}
			probs = append(probs, airline.Problem(airline.CheckSeatAudit, n, "(schedule, day) pair", ex))
		}
	}

	// Seats and payments per user. The counts are of seats and payments,
	// as the SQL checks count rows.
	seatOff := bson.D{{Key: "seats", Value: bson.D{{Key: "$gt", Value: 0}}}, {Key: "payments", Value: bson.D{{Key: "$ne", Value: 1}}}}
	paymentOff := bson.D{{Key: "payments", Value: bson.D{{Key: "$gt", Value: 0}}}, {Key: "seats", Value: bson.D{{Key: "$ne", Value: 1}}}}
	type userRow struct {
		User     any   `bson:"_id"`
		Seats    int64 `bson:"seats"`
		Payments int64 `bson:"payments"`
	}
	var users []struct {
		Seat     []userRow `bson:"seat"`
		SeatN    []count   `bson:"seatN"`
		Payment  []userRow `bson:"payment"`
		PaymentN []count   `bson:"paymentN"`
	}
	if err := aggregate(ctx, db.Collection("seat"), drv.Pipeline{
		{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "u", Value: "$user_id"}, {Key: "seats", Value: lit(1)}, {Key: "payments", Value: lit(0)}}}},
		{{Key: "$unionWith", Value: bson.D{{Key: "coll", Value: "payment"}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "u", Value: "$user_id"}, {Key: "seats", Value: lit(0)}, {Key: "payments", Value: lit(1)}}}},
		}}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$u"},
			{Key: "seats", Value: bson.D{{Key: "$sum", Value: "$seats"}}},
			{Key: "payments", Value: bson.D{{Key: "$sum", Value: "$payments"}}}}}},
		{{Key: "$match", Value: bson.D{{Key: "$or", Value: bson.A{seatOff, paymentOff}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		{{Key: "$facet", Value: bson.D{
			{Key: "seat", Value: examples(seatOff)}, {Key: "seatN", Value: facet(seatOff, "$seats")},
			{Key: "payment", Value: examples(paymentOff)}, {Key: "paymentN", Value: facet(paymentOff, "$payments")},
		}}},
	}, &users); err != nil {
		return probs, fmt.Errorf("check %q: %w", airline.CheckSeatPayment, err)
	}
	if len(users) == 1 {
		u := users[0]
		if n := total(u.SeatN); n > 0 {
			var ex []string
			for _, r := range u.Seat {
				ex = append(ex, fmt.Sprintf("user %v: %d payments for %d seats", r.User, r.Payments, r.Seats))
			}
			probs = append(probs, airline.Problem(airline.CheckSeatPayment, n, "seat", ex))
		}
		if n := total(u.PaymentN); n > 0 {
			var ex []string
			for _, r := range u.Payment {
				ex = append(ex, fmt.Sprintf("user %v: %d seats for %d payments", r.User, r.Seats, r.Payments))
			}
			probs = append(probs, airline.Problem(airline.CheckPaymentSeat, n, "payment", ex))
		}
	}
	return probs, nil
}

// aggregate runs pipeline on coll and decodes every result into out.
func aggregate(ctx context.Context, coll *drv.Collection, pipeline drv.Pipeline, out any) error {
	cur, err := coll.Aggregate(ctx, pipeline)
	if err != nil {
		return err
	}
	return cur.All(ctx, out)
}
