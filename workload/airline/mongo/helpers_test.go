package mongo

import (
	"context"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	mopts "go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/airline"
	"github.com/dbarena/dbarena/workload/airline/internal/airlinetest"
)

// parse returns the registered workload with args parsed.
func parse(t *testing.T, args ...string) *airline.Airline {
	t.Helper()
	w := airline.New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	return w
}

// bind is w's implementation for MongoDB, as workload.ForFamily picks it.
func bind(t *testing.T, w *airline.Airline) workload.Workload {
	t.Helper()
	impl, err := workload.ForFamily(w, mongo.Dialect{})
	if err != nil {
		t.Fatal(err)
	}
	return impl
}

// booked returns the number of seats and the sum of the audit counts.
func booked(t *testing.T, c engine.Conn) (seats, occupied int64) {
	t.Helper()
	ctx := context.Background()
	mc := c.(*mongo.Conn)
	n, err := mc.DB().Collection("seat").CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var sum []struct {
		N int64 `bson:"n"`
	}
	if err := aggregate(ctx, mc.DB().Collection("audit"), drv.Pipeline{
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "n", Value: bson.D{{Key: "$sum", Value: "$seats_occupied"}}}}}},
	}, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum) == 1 {
		occupied = sum[0].N
	}
	return n, occupied
}

// corruption breaks one invariant on MongoDB, as workload/airline's
// tests break it in SQL.
type corruption struct {
	name, want string
	mongo      func(ctx context.Context, db *drv.Database) error
}

func (k corruption) do(t *testing.T, c engine.Conn) {
	t.Helper()
	if err := k.mongo(context.Background(), c.(*mongo.Conn).DB()); err != nil {
		t.Fatalf("%s: %v", k.name, err)
	}
}

// first returns field of the seat document with the smallest (order 1)
// or largest (-1) value of field.
func first(ctx context.Context, db *drv.Database, field string, order int) (any, error) {
	var doc bson.M
	err := db.Collection("seat").FindOne(ctx, bson.D{}, mopts.FindOne().SetSort(bson.D{{Key: field, Value: order}})).Decode(&doc)
	return doc[field], err
}

var corruptions = []corruption{
	{"one more seat counted in the first schedule's audit", airline.CheckAuditCounts,
		func(ctx context.Context, db *drv.Database) error {
			s, err := first(ctx, db, "schedule_id", 1)
			if err == nil {
				_, err = db.Collection("audit").UpdateMany(ctx, bson.D{{Key: "schedule_id", Value: s}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "seats_occupied", Value: 1}}}})
			}
			return err
		}},
	{"the first user's payment deleted", airline.CheckSeatPayment,
		func(ctx context.Context, db *drv.Database) error {
			u, err := first(ctx, db, "user_id", 1)
			if err == nil {
				_, err = db.Collection("payment").DeleteMany(ctx, bson.D{{Key: "user_id", Value: u}})
			}
			return err
		}},
	{"the last user's seat deleted", airline.CheckPaymentSeat,
		func(ctx context.Context, db *drv.Database) error {
			u, err := first(ctx, db, "user_id", -1)
			if err == nil {
				_, err = db.Collection("seat").DeleteMany(ctx, bson.D{{Key: "user_id", Value: u}})
			}
			return err
		}},
	{"a seat on a day without audit", airline.CheckSeatAudit,
		func(ctx context.Context, db *drv.Database) error {
			_, err := db.Collection("seat").InsertOne(ctx, bson.D{{Key: "user_id", Value: int64(1)}, {Key: "schedule_id", Value: int64(1)}, {Key: "day", Value: int64(19990101)}})
			return err
		}},
}

// TestBookThenCheck is workload/airline's test of the same name on the
// MongoDB test server (a one-node replica set, so transactions work):
// it prepares a small schedule collection (so that 16 threads collide on
// a few audit documents; --day-range is 1), books with transactions at
// MongoDB's one level (write conflicts on the audit document are
// retried), checks the invariants, then corrupts the data and expects the
// checks to name what broke.
func TestBookThenCheck(t *testing.T) {
	ctx := context.Background()
	e := mongoEngine(t)
	w := parse(t, "--schedules", "20", "--aircraft", "5")
	if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: loadThreads}); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	res, err := runner.Run(ctx, e, w, runner.Config{Threads: 16, Duration: 2 * time.Second, Seed: 5, Isolation: engine.RepeatableRead}, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("mongodb %s: %d bookings, %d retries (%.2f%%), %d errors, p99 %.2f ms", engine.RepeatableRead, res.Transactions, res.Retries, res.RetryPct, res.Errors, res.LatencyMS.P99)
	airlinetest.WantRun(t, res, true, engine.RepeatableRead)
	c := airlinetest.Connect(t, e)
	seats, occupied := booked(t, c)
	// Every committed booking, and nothing else, is in the collections.
	airlinetest.WantBooked(t, res, seats, occupied)
	impl := bind(t, w).Define()
	if probs, err := impl.Check(ctx, c); err != nil || len(probs) > 0 {
		t.Fatalf("check after the run: %v %v", probs, err)
	}

	for _, tc := range corruptions {
		tc.do(t, c)
		probs, err := impl.Check(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		airlinetest.WantProblem(t, tc.name, probs, tc.want, airline.CheckAuditCounts)
	}
	if _, err := load.Cleanup(ctx, e, w); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

// The collections are the tables with the same fields, _id first, and
// the same rows; --transactions is recorded with the other options.
func TestMongoTables(t *testing.T) {
	w := parse(t, "--schedules", "7", "--aircraft", "3")
	sql, docs := w.Define().Tables(sqlite.Dialect{}), bind(t, w).Define().Tables(mongo.Dialect{})
	if len(sql) != len(docs) {
		t.Fatalf("%d tables, %d collections", len(sql), len(docs))
	}
	for i := range sql {
		s, d := sql[i].Resolve(), docs[i].Resolve()
		fields := mongo.Fields(d.Schema)
		if s.Name != d.Name || s.Batches != d.Batches || !reflect.DeepEqual(s.Schema, d.Schema) || (len(d.Schema.PrimaryKey) == 1) != (fields[0] == "_id") {
			t.Errorf("table %s %v (%d batches), collection %s %v (%d batches)", s.Name, s.Columns, s.Batches, d.Name, fields, d.Batches)
		}
		for b := 0; b < s.Batches; b++ {
			if got, want := rows(t, d.Rows(b)), rows(t, s.Rows(b)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s batch %d: the collection's rows differ from the table's", s.Name, b)
			}
		}
	}
	if audit := docs[4].Schema; audit.Name != "audit" || len(mongo.Indexes(audit)) != 1 || !mongo.Indexes(audit)[0].Unique ||
		mongo.Indexes(audit)[0].Keys.String() != `{"schedule_id":{"$numberInt":"1"},"day":{"$numberInt":"1"}}` {
		t.Errorf("audit's indexes: %+v", mongo.Indexes(audit))
	}
	if got := workload.OptionValues(w)["transactions"]; got != "on" {
		t.Errorf("transactions option recorded as %q", got)
	}
}

func rows(t *testing.T, src engine.RowSource) [][]any {
	t.Helper()
	var out [][]any
	for src.Next() {
		v, err := src.Values()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]any(nil), v...))
	}
	return out
}
