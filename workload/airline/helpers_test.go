package airline

import (
	"context"
	"testing"

	"github.com/dbarena/dbarena/engine"
)

// booked returns the number of seats and the sum of the audit counts.
func booked(t *testing.T, c engine.Conn) (seats, occupied int64) {
	t.Helper()
	ctx := context.Background()
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

// corruption breaks one invariant in SQL (workload/airline/mongo's tests
// break the same ones on MongoDB).
type corruption struct {
	name, want string
	sql        func(d engine.SQLDialect) string
}

func (k corruption) do(t *testing.T, c engine.Conn) {
	t.Helper()
	sc, _ := engine.SQL(c)
	if err := sc.Exec(context.Background(), k.sql(sc.Dialect())); err != nil {
		t.Fatalf("%s: %v", k.name, err)
	}
}

// loadThreads is the prepare's --load-threads in these tests.
const loadThreads = 2

var corruptions = []corruption{
	{"one more seat counted in the first schedule's audit", CheckAuditCounts,
		func(engine.SQLDialect) string {
			return "UPDATE audit SET seats_occupied = seats_occupied + 1 WHERE schedule_id = (SELECT MIN(schedule_id) FROM seat)"
		}},
	{"the first user's payment deleted", CheckSeatPayment,
		func(engine.SQLDialect) string {
			return "DELETE FROM payment WHERE user_id = (SELECT MIN(user_id) FROM seat)"
		}},
	{"the last user's seat deleted", CheckPaymentSeat,
		func(engine.SQLDialect) string {
			return "DELETE FROM seat WHERE user_id = (SELECT MAX(user_id) FROM payment)"
		}},
	{"a seat on a day without audit", CheckSeatAudit,
		func(d engine.SQLDialect) string {
			return "INSERT INTO seat (user_id, schedule_id, " + d.QuoteIdent("day") + ") VALUES (1, 1, 19990101)"
		}},
}
