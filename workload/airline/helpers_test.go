package airline

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	mopts "go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
)

// connect opens a connection of e, closed at the end of the test.
func connect(t *testing.T, e engine.Engine) engine.Conn {
	t.Helper()
	c, err := e.Connect(context.Background())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// booked returns the number of seats and the sum of the audit counts.
func booked(t *testing.T, c engine.Conn) (seats, occupied int64) {
	t.Helper()
	ctx := context.Background()
	if mc, ok := c.(*mongo.Conn); ok {
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
	sc, err := engine.SQL(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.QueryRow(ctx, "SELECT COUNT(*) FROM seat", nil, &seats); err != nil {
		t.Fatal(err)
	}
	if err := sc.QueryRow(ctx, "SELECT COALESCE(SUM(seats_occupied), 0) FROM audit", nil, &occupied); err != nil {
		t.Fatal(err)
	}
	return seats, occupied
}

// corruption breaks one invariant, in SQL or on MongoDB.
type corruption struct {
	name, want string
	sql        func(d engine.SQLDialect) string
	mongo      func(ctx context.Context, db *drv.Database) error
}

func (k corruption) do(t *testing.T, c engine.Conn) {
	t.Helper()
	ctx := context.Background()
	var err error
	if mc, ok := c.(*mongo.Conn); ok {
		err = k.mongo(ctx, mc.DB())
	} else {
		sc, _ := engine.SQL(c)
		err = sc.Exec(ctx, k.sql(sc.Dialect()))
	}
	if err != nil {
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
	{"one more seat counted in the first schedule's audit", checkAuditCounts,
		func(engine.SQLDialect) string {
			return "UPDATE audit SET seats_occupied = seats_occupied + 1 WHERE schedule_id = (SELECT MIN(schedule_id) FROM seat)"
		},
		func(ctx context.Context, db *drv.Database) error {
			s, err := first(ctx, db, "schedule_id", 1)
			if err == nil {
				_, err = db.Collection("audit").UpdateMany(ctx, bson.D{{Key: "schedule_id", Value: s}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "seats_occupied", Value: 1}}}})
			}
			return err
		}},
	{"the first user's payment deleted", checkSeatPayment,
		func(engine.SQLDialect) string {
			return "DELETE FROM payment WHERE user_id = (SELECT MIN(user_id) FROM seat)"
		},
		func(ctx context.Context, db *drv.Database) error {
			u, err := first(ctx, db, "user_id", 1)
			if err == nil {
				_, err = db.Collection("payment").DeleteMany(ctx, bson.D{{Key: "user_id", Value: u}})
			}
			return err
		}},
	{"the last user's seat deleted", checkPaymentSeat,
		func(engine.SQLDialect) string {
			return "DELETE FROM seat WHERE user_id = (SELECT MAX(user_id) FROM payment)"
		},
		func(ctx context.Context, db *drv.Database) error {
			u, err := first(ctx, db, "user_id", -1)
			if err == nil {
				_, err = db.Collection("seat").DeleteMany(ctx, bson.D{{Key: "user_id", Value: u}})
			}
			return err
		}},
	{"a seat on a day without audit", checkSeatAudit,
		func(d engine.SQLDialect) string {
			return "INSERT INTO seat (user_id, schedule_id, " + d.QuoteIdent("day") + ") VALUES (1, 1, 19990101)"
		},
		func(ctx context.Context, db *drv.Database) error {
			_, err := db.Collection("seat").InsertOne(ctx, bson.D{{Key: "user_id", Value: int64(1)}, {Key: "schedule_id", Value: int64(1)}, {Key: "day", Value: int64(19990101)}})
			return err
		}},
}

var inAll = regexp.MustCompile(`\((\d+) \(schedule, day\) pairs? in all\)$`)

// pairsInAll finds the problem named check and returns the number of
// (schedule, day) pairs its Detail reports, or -1 when there is no such
// problem.
func pairsInAll(t *testing.T, probs []workload.Problem, check string) int64 {
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
