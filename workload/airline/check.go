package airline

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// The invariants Check verifies, by the names its Problems carry, on
// every engine family.
const (
	CheckAuditCounts = "audit counts seats"
	CheckSeatAudit   = "every seat has its audit row"
	CheckSeatPayment = "every seat has one payment"
	CheckPaymentSeat = "every payment has one seat"
)

// MaxExamples is how many violations a Problem's Detail names; the Detail
// always says how many there are in all.
const MaxExamples = 5

// Problem is one violated invariant: up to MaxExamples examples, then
// "(n units in all)", so that a run that lost updates shows how many.
func Problem(check string, n int64, unit string, examples []string) workload.Problem {
	if n != 1 {
		unit += "s"
	}
	detail := strings.Join(examples, "; ")
	if int64(len(examples)) < n {
		detail += "; …"
	}
	return workload.Problem{Check: check, Detail: detail + fmt.Sprintf(" (%d %s in all)", n, unit)}
}

// check verifies the invariants the bookings keep: every (schedule, day)
// audit row counts exactly the seats booked for it, no seat lacks its
// audit row, and seats and payments pair one to one by user. Each violated
// invariant is one Problem whose Detail gives the number of violations
// (on MongoDB with --transactions off, the (schedule, day) pairs whose
// audit disagrees with the seats are what the run lost).
func (w *Airline) check(ctx context.Context, conn engine.Conn) ([]workload.Problem, error) {
	c, cerr := engine.SQL(conn)
	if cerr != nil {
		return nil, cerr
	}
	day := c.Dialect().QuoteIdent("day")
	var probs []workload.Problem
	checks := []struct {
		name, unit, sql string
		detail          func(row []any) string
	}{
		{CheckAuditCounts, "(schedule, day) pair",
			"SELECT a.schedule_id, a." + day + ", a.seats_occupied, COUNT(s.id) FROM audit a LEFT JOIN seat s ON s.schedule_id = a.schedule_id AND s." + day + " = a." + day +
				" GROUP BY a.schedule_id, a." + day + ", a.seats_occupied HAVING a.seats_occupied <> COUNT(s.id) ORDER BY 1, 2",
			func(r []any) string {
				return fmt.Sprintf("schedule %v, day %v: seats_occupied %v, seats booked %v", r[0], r[1], r[2], r[3])
			}},
		{CheckSeatAudit, "(schedule, day) pair",
			"SELECT s.schedule_id, s." + day + ", COUNT(*) FROM seat s LEFT JOIN audit a ON a.schedule_id = s.schedule_id AND a." + day + " = s." + day +
				" WHERE a.schedule_id IS NULL GROUP BY s.schedule_id, s." + day + " ORDER BY 1, 2",
			func(r []any) string {
				return fmt.Sprintf("schedule %v, day %v: %v seats, no audit row", r[0], r[1], r[2])
			}},
		{CheckSeatPayment, "seat",
			"SELECT s.user_id, COUNT(p.id) FROM seat s LEFT JOIN payment p ON p.user_id = s.user_id GROUP BY s.id, s.user_id HAVING COUNT(p.id) <> 1 ORDER BY 1",
			func(r []any) string { return fmt.Sprintf("user %v: %v payments for a seat", r[0], r[1]) }},
		{CheckPaymentSeat, "payment",
			"SELECT p.user_id, COUNT(s.id) FROM payment p LEFT JOIN seat s ON s.user_id = p.user_id GROUP BY p.id, p.user_id HAVING COUNT(s.id) <> 1 ORDER BY 1",
			func(r []any) string { return fmt.Sprintf("user %v: %v seats for a payment", r[0], r[1]) }},
	}
	for i, ck := range checks {
		var found []string
		var n int64
		err := c.QueryRows(ctx, ck.sql, nil, func(row []any) error {
			if n++; n <= MaxExamples {
				found = append(found, ck.detail(row))
			}
			return nil
		})
		if err != nil {
			return probs, fmt.Errorf("check %q: %w", ck.name, err)
		}
		if n > 0 {
			probs = append(probs, Problem(ck.name, n, ck.unit, found))
		}
		workload.ReportCheck(ctx, i+1, len(checks), ck.name)
	}
	return probs, nil
}
