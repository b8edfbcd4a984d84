package airline

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
)

func init() { workload.Register(meta()) }

func meta() workload.Meta {
	return workload.Meta{
		Name:        "airline",
		Description: "airline booking (PostgreSQL/MongoDB study): schedule+aircraft read, seat and payment inserts, audit upsert; isolation levels, retries, invariant checks",
		Version:     "1",
		New:         func() workload.Workload { return New() },
	}
}

type options struct {
	aircraft, schedules int
	dayRange            int
	bookingSleep        time.Duration
	transactions        string
	seedData            uint64
}

// Airline is a workload, and its workers replay a booking.
var (
	_ workload.Workload = (*Airline)(nil)
	_ workload.Replayer = (*worker)(nil)
)

// Airline is the workload with its options, and its implementation for
// SQL engines. Its exported methods besides Define and Open (NextBooking,
// CheckWorker, …) are what the implementation for MongoDB
// (workload/airline/mongo) shares; a run's user ids are a Users of the
// Run that Open returns.
type Airline struct {
	opts options
	fs   *pflag.FlagSet
}

// New returns the workload with default options.
func New() *Airline {
	w := &Airline{fs: pflag.NewFlagSet("airline", pflag.ContinueOnError)}
	o := &w.opts
	fs := w.fs
	fs.IntVar(&o.aircraft, "aircraft", 200, "rows of aircraft (reference data)")
	fs.IntVar(&o.schedules, "schedules", 15000, "rows of flight schedules (reference data)")
	fs.IntVar(&o.dayRange, "day-range", 1, "bookings spread over this many days from today: 1 (the study's value) makes every booking of a schedule update the same audit row, the contention the benchmark measures")
	fs.DurationVar(&o.bookingSleep, "booking-sleep", 0, "sleep inside each booking transaction, before COMMIT (holds its locks longer); with --transactions off, before the audit upsert (holds the booking half done)")
	fs.StringVar(&o.transactions, "transactions", transactionsOn, "on: each booking is one transaction; off (MongoDB only): each operation alone, atomic for one document only, as the study's runs without transactions")
	fs.Uint64Var(&o.seedData, "seed-data", 0, "seed of the reference data (aircraft and schedules)")
	return w
}

// Define is the booking on SQL engines: its options, the reference
// data's size and seed as the options that define the data, the five
// tables, the one op, the invariant checks, the isolation levels it
// accepts and the runner's defaults for the replays.
func (w *Airline) Define() workload.Spec {
	return workload.Spec{
		Meta:           meta(),
		Options:        w.fs,
		Validate:       w.validate,
		CheckIsolation: w.checkIsolation,
		DataOptions:    []string{"aircraft", "schedules", "seed-data"},
		Tables:         w.tables,
		Check:          w.check,
		CheckDoc: "Every booking is one seat, one payment and one audit increment in one transaction: each (schedule, day)'s audit count equals its seats booked, " +
			"every seat has its audit row, every seat one payment and every payment one seat. Lost updates (read committed's double bookings) break them.",
		Ops:         []workload.Op{{Name: "booking"}},
		RunDefaults: runDefaults(),
	}
}

// Open starts a run on an SQL engine: it refuses --transactions off, and
// its workers share the run's user ids (Users), which start after the
// highest user id booked before the run.
func (w *Airline) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	if err := w.sqlOptions(); err != nil {
		return nil, err
	}
	users := new(Users)
	return &workload.Run{NewWorker: func(ctx context.Context, c engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
		return w.newWorker(ctx, c, env, users)
	}}, nil
}

// Bounds of the reference data: a hundred times the study's fleet and
// schedule.
const (
	MaxAircraft  = 20_000
	MaxSchedules = 1_500_000
)

// validate reports every bad option at once.
func (w *Airline) validate() []error {
	var errs []error
	o := &w.opts
	bad := func(flag string, v any, why string) {
		errs = append(errs, &workload.OptionError{Flag: flag, Value: fmt.Sprint(v), Err: why})
	}
	if o.aircraft < 1 {
		bad("aircraft", o.aircraft, "must be at least 1")
	}
	if o.schedules < 1 {
		bad("schedules", o.schedules, "must be at least 1")
	}
	if o.aircraft > MaxAircraft {
		bad("aircraft", o.aircraft, fmt.Sprintf("at most %d", MaxAircraft))
	}
	if o.schedules > MaxSchedules {
		bad("schedules", o.schedules, fmt.Sprintf("at most %d", MaxSchedules))
	}
	if o.dayRange < 1 {
		bad("day-range", o.dayRange, "must be at least 1")
	}
	if o.bookingSleep < 0 {
		bad("booking-sleep", o.bookingSleep, "must not be negative")
	}
	switch o.transactions {
	case transactionsOn, transactionsOff:
	default:
		bad("transactions", o.transactions, "must be on or off")
	}
	return errs
}

// runDefaults are the runner's defaults: the engine's isolation level
// (--isolation), workload.DefaultRetryPolicy for the replays
// (--max-retries, --retry-backoff, --retry-backoff-max). Stating them
// records them with every result, as the options they are.
func runDefaults() *workload.RunDefaults {
	return &workload.RunDefaults{Retry: workload.DefaultRetryPolicy()}
}

// checkIsolation refuses a run's isolation level (--isolation, set by the
// runner) without transactions, and on MongoDB every level but
// repeatable-read. MongoDB's transactions have one level: every
// transaction reads one snapshot, and a write to a document another
// transaction wrote since that snapshot fails with a write conflict
// (snapshot isolation, first writer wins), which is what PostgreSQL's
// repeatable read is. It is not serializable: two transactions that read
// each other's documents and write different ones (write skew) both
// commit.
func (w *Airline) checkIsolation(d engine.Dialect, level string) error {
	if w.opts.transactions == transactionsOff {
		return errors.New("needs --transactions on: without transactions there is no transaction isolation")
	}
	if d.Family() == engine.FamilyMongo && level != engine.RepeatableRead {
		return errors.New("MongoDB transactions have one level, snapshot isolation, which is what PostgreSQL calls repeatable read (not serializable: write skew is possible); use repeatable-read or leave --isolation empty")
	}
	return nil
}

// The values of --transactions.
const (
	transactionsOn  = "on"
	transactionsOff = "off"
)

// scheduleBatch is the flight schedules loaded in one batch.
const scheduleBatch = 5000

// referenceData returns the aircraft and schedules, generated once, on
// first use, by whichever loader comes first: the same rows on every
// engine.
func (w *Airline) referenceData() func() *referenceData {
	return sync.OnceValue(func() *referenceData { return generate(w.opts.seedData, w.opts.aircraft, w.opts.schedules) })
}

// tables are the two reference tables, loaded, and the three the
// bookings fill, empty, declared by declared, for every engine.
func (w *Airline) tables(engine.Dialect) []workload.Table {
	data := w.referenceData()
	decl := declared()
	// The flights in batches, which the shards of a sharded prepare
	// share out.
	flights := (w.opts.schedules + scheduleBatch - 1) / scheduleBatch
	return []workload.Table{
		{Schema: decl[0], Batches: 1, Rows: func(int) engine.RowSource { return source(data().aircraft) }},
		{Schema: decl[1], Batches: flights, Rows: func(b int) engine.RowSource {
			s := data().schedules
			return source(s[b*scheduleBatch : min((b+1)*scheduleBatch, len(s))])
		}},
		{Schema: decl[2]},
		{Schema: decl[3]},
		{Schema: decl[4]},
	}
}

// declared are the five tables, their columns in the order of the
// initial data. On MongoDB aircraft and schedule keep their ids as _id
// (the booking's read matches the schedule by _id); seat and payment,
// whose SQL ids are SERIALs, get the ObjectId the driver assigns, since a
// booking has no key of its own to give them; audit's key (schedule_id,
// day) is a unique index there, so that two first bookings of a pair
// cannot create two documents. Secondary indexes are built after the load.
func declared() []*schema.Table {
	intC := func(name string) schema.Column { return schema.Column{Name: name, Type: schema.Int} }
	str := func(ty schema.Type, name string, n int) schema.Column {
		return schema.Column{Name: name, Type: ty, Size: n}
	}
	ts := func(name string) schema.Column { return schema.Column{Name: name, Type: schema.Timestamp} }
	keys := func(cols ...string) []schema.Key {
		out := make([]schema.Key, len(cols))
		for i, c := range cols {
			out[i] = schema.Col(c)
		}
		return out
	}
	id := []string{"id"}
	return []*schema.Table{
		{
			Name: "aircraft", PrimaryKey: id,
			Columns: []schema.Column{intC("id"), str(schema.Varchar, "name", 60), str(schema.Char, "icao", 4), str(schema.Char, "iata", 3), intC("capacity"), str(schema.Varchar, "country", 40)},
			Indexes: []schema.Index{{Name: "aircraft_iata", Keys: keys("iata"), Unique: true}},
		},
		{
			Name: "schedule", PrimaryKey: id,
			Columns: []schema.Column{
				intC("id"), str(schema.Char, "from_airport", 3), str(schema.Char, "to_airport", 3), intC("valid_from"), intC("valid_until"),
				str(schema.Varchar, "days", 7), str(schema.Char, "departure", 5), str(schema.Char, "arrival", 5),
				str(schema.Varchar, "flight", 8), str(schema.Char, "aircraft_iata", 3), intC("duration_minutes"),
			},
		},
		{
			Name: "seat", PrimaryKey: id,
			Columns: []schema.Column{{Name: "id", Type: schema.Serial}, {Name: "user_id", Type: schema.BigInt}, intC("schedule_id"), intC("day")},
			Indexes: []schema.Index{{Name: "seat_schedule_day", Keys: keys("schedule_id", "day")}, {Name: "seat_user", Keys: keys("user_id")}},
		},
		{
			Name: "payment", PrimaryKey: id,
			Columns: []schema.Column{{Name: "id", Type: schema.Serial}, {Name: "user_id", Type: schema.BigInt}, {Name: "amount", Type: schema.Decimal, Size: 12, Scale: 2}, ts("paid_at")},
			Indexes: []schema.Index{{Name: "payment_user", Keys: keys("user_id")}},
		},
		{
			Name: "audit", PrimaryKey: []string{"schedule_id", "day"},
			Columns: []schema.Column{intC("schedule_id"), intC("day"), ts("last_date"), intC("seats_occupied")},
		},
	}
}

// Transactions reports whether bookings run in transactions
// (--transactions on).
func (w *Airline) Transactions() bool { return w.opts.transactions == transactionsOn }

// BookingSleep is --booking-sleep.
func (w *Airline) BookingSleep() time.Duration { return w.opts.bookingSleep }

// sqlOptions refuses --transactions off: SQL engines always run the
// booking in a transaction (BEGIN … COMMIT), which is what the study
// compared MongoDB's transactions and non-transactional runs with.
func (w *Airline) sqlOptions() error {
	if w.opts.transactions != transactionsOn {
		return &workload.OptionError{Flag: "transactions", Value: w.opts.transactions,
			Err: "SQL engines always run the booking in a transaction; off is for MongoDB only"}
	}
	return nil
}

// upsertSQL is the audit upsert in the dialect's style.
func upsertSQL(d engine.SQLDialect) (string, error) {
	style := d.Capabilities().Upsert
	day := d.QuoteIdent("day")
	insert := "INSERT INTO audit (schedule_id, " + day + ", last_date, seats_occupied) VALUES (?, ?, ?, 1)"
	switch style {
	case engine.UpsertOnConflict:
		return insert + " ON CONFLICT (schedule_id, " + day + ") DO UPDATE SET seats_occupied = audit.seats_occupied + 1, last_date = excluded.last_date", nil
	case engine.UpsertOnDuplicateKey:
		return insert + " ON DUPLICATE KEY UPDATE seats_occupied = seats_occupied + 1, last_date = VALUES(last_date)", nil
	}
	return "", fmt.Errorf("airline: %s has no insert-or-update statement", d.Name())
}

// CheckWorker is what every family's NewWorker checks first: the options
// (the first error of Spec.Validate) and that worker env.ID has user ids of
// its own.
func (w *Airline) CheckWorker(env workload.WorkerEnv) error {
	if errs := w.validate(); len(errs) > 0 {
		return errs[0]
	}
	if env.ID >= 1<<workerBits {
		return fmt.Errorf("airline: at most %d threads", 1<<workerBits)
	}
	return nil
}

// newWorker prepares the booking's statements on c, a worker of the run
// whose user ids are users.
func (w *Airline) newWorker(ctx context.Context, conn engine.Conn, env workload.WorkerEnv, users *Users) (workload.Worker, error) {
	if err := w.CheckWorker(env); err != nil {
		return nil, err
	}
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return nil, cerr
	}
	if err := w.sqlOptions(); err != nil {
		return nil, err
	}
	d := c.Dialect()
	upsert, err := upsertSQL(d)
	if err != nil {
		return nil, err
	}
	user, err := users.Seq(env.ID, func() (int64, error) {
		var maxUser int64
		err := c.QueryRow(ctx, "SELECT COALESCE(MAX(user_id), 0) FROM seat", nil, &maxUser)
		return maxUser, err
	})
	if err != nil {
		return nil, err
	}
	wk := &worker{w: w, c: c, q: env.Queries, r: NewRand(env.Seed), sleep: env.Sleep, user: user}
	for _, p := range []struct {
		dst *engine.Stmt
		sql string
	}{
		{&wk.schedule, "SELECT s.duration_minutes, a.capacity FROM schedule s JOIN aircraft a ON a.iata = s.aircraft_iata WHERE s.id = ?"},
		{&wk.seat, "INSERT INTO seat (user_id, schedule_id, " + d.QuoteIdent("day") + ") VALUES (?, ?, ?)"},
		{&wk.payment, "INSERT INTO payment (user_id, amount, paid_at) VALUES (?, ?, ?)"},
		{&wk.audit, upsert},
	} {
		st, err := c.Prepare(ctx, p.sql)
		if err != nil {
			return nil, fmt.Errorf("airline: preparing %q: %w", p.sql, err)
		}
		*p.dst = st
	}
	return wk, nil
}

// dayNumber is t's date as yyyymmdd.
func dayNumber(t time.Time) int64 {
	y, m, d := t.Date()
	return int64(y)*10000 + int64(m)*100 + int64(d)
}
