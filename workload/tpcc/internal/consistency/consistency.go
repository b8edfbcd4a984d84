package consistency

import (
	"context"
	"fmt"
	"strconv"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/internal/rules"
)

// MaxDetails is how many violating rows a Problem's Detail names; the
// Detail always says how many there are in all.
const MaxDetails = rules.MaxDetails

// InitialDelivered is the number of orders per district that the initial
// population delivers (clause 4.3.3.1: orders 1 to 2,100 of 3,000), the
// constant of condition 11.
const InitialDelivered = 2100

// Condition is one consistency condition of clause 3.3.2.
type Condition struct {
	Number int    // 1 to 12, as in clause 3.3.2.Number
	Name   string // the relationship, e.g. "W_YTD = sum(D_YTD)"
}

// Check is the condition's name as it appears in workload.Problem.Check:
// "condition 1: W_YTD = sum(D_YTD)".
func (c Condition) Check() string {
	return fmt.Sprintf("condition %d: %s", c.Number, c.Name)
}

// Options choose which conditions CheckWith checks.
type Options struct {
	// Fresh adds condition 11, which holds only on a database that no
	// Delivery transaction has touched yet (freshly loaded, or after runs
	// without Delivery).
	Fresh bool
}

// Conditions lists the twelve conditions in order, 11 included.
func Conditions() []Condition {
	out := make([]Condition, len(conditions))
	for i, c := range conditions {
		out[i] = c.Condition
	}
	return out
}

// Check checks conditions 1 to 12 except 11 (see Options.Fresh) and
// returns one Problem per violated condition, in order; none means the
// database is consistent. The error reports a query that could not run
// (the Problems found before it are returned with it). Check runs one
// query after the other on c, which must not be used concurrently.
func Check(ctx context.Context, c engine.SQLConn) ([]workload.Problem, error) {
	return CheckWith(ctx, c, Options{})
}

// CheckWith is Check with options; with Fresh it checks condition 11 too.
func CheckWith(ctx context.Context, c engine.SQLConn, opts Options) ([]workload.Problem, error) {
	var rs []rules.Rule
	for i := range conditions {
		cd := &conditions[i]
		if !cd.freshOnly || opts.Fresh {
			rs = append(rs, cd.query().Rule(c, "consistency"))
		}
	}
	return rules.Run(ctx, rs)
}

// Number returns the number of the condition p reports, or 0 when p is
// not a Problem of this package.
func Number(p workload.Problem) int {
	for _, c := range conditions {
		if p.Check == c.Check() {
			return c.Number
		}
	}
	return 0
}

// How to print a value of a violating row.
const (
	kMoney = rules.Money // decimal with two places
	kInt   = rules.Int   // integer (or null)
	kText  = rules.Text  // a string, as it is
)

type column = rules.Column

// condition is a Condition with its query. The query returns only
// violating rows: first len(keys) key columns, then one column per
// entry of cols. Its column names must be unique (it runs as a derived
// table).
type condition struct {
	Condition
	freshOnly bool
	unit      string   // what a row is: "warehouse", "district" …
	keys      []string // names of the key columns in Detail: "w", "d" …
	cols      []column
	sql       string
}

// query is cd as the rule that checks it.
func (cd *condition) query() rules.Query {
	return rules.Query{Name: cd.Check(), Unit: cd.unit, Keys: cd.keys, Cols: cd.cols, SQL: cd.sql}
}

// Shared pieces of the queries.
const (
	// deliveredPerCustomer sums OL_AMOUNT of the delivered order lines
	// per customer, reading orders through orders_customer (w, d, c, o)
	// and their lines through the order_line primary key.
	deliveredPerCustomer = `SELECT o.o_w_id, o.o_d_id, o.o_c_id, SUM(l.ol_amount) AS s
		FROM orders o JOIN order_line l
		  ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
		WHERE l.ol_delivery_d IS NOT NULL
		GROUP BY o.o_w_id, o.o_d_id, o.o_c_id`
	// onCustomer joins deliveredPerCustomer ol to customer c.
	onCustomer = `ol.o_w_id = c.c_w_id AND ol.o_d_id = c.c_d_id AND ol.o_c_id = c.c_id`
	// linesOfOrder selects the order lines l of order o.
	linesOfOrder = `l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id`
)

var conditions = []condition{
	{
		Condition: Condition{1, "W_YTD = sum(D_YTD)"},
		unit:      "warehouse", keys: []string{"w"},
		cols: []column{{"w_ytd", kMoney}, {"sum(d_ytd)", kMoney}},
		sql: `SELECT w.w_id, w.w_ytd, COALESCE(d.s, 0) AS sum_d_ytd
			FROM warehouse w
			LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS s FROM district GROUP BY d_w_id) d
			  ON d.d_w_id = w.w_id
			WHERE ROUND(w.w_ytd, 2) <> ROUND(COALESCE(d.s, 0), 2)`,
	},
	{
		Condition: Condition{2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)"},
		unit:      "district", keys: []string{"w", "d"},
		cols: []column{{"d_next_o_id", kInt}, {"max(o_id)", kInt}, {"max(no_o_id)", kInt}},
		sql: `SELECT d.d_w_id, d.d_id, d.d_next_o_id, o.mx AS max_o_id, n.mx AS max_no_o_id
			FROM district d
			LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS mx FROM orders GROUP BY o_w_id, o_d_id) o
			  ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
			LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS mx FROM new_order GROUP BY no_w_id, no_d_id) n
			  ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
			WHERE COALESCE(o.mx, 0) <> d.d_next_o_id - 1 OR n.mx <> d.d_next_o_id - 1`,
	},
	{
		Condition: Condition{3, "max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER)"},
		unit:      "district", keys: []string{"w", "d"},
		cols: []column{{"min(no_o_id)", kInt}, {"max(no_o_id)", kInt}, {"count", kInt}},
		sql: `SELECT no_w_id, no_d_id, MIN(no_o_id) AS min_no_o_id, MAX(no_o_id) AS max_no_o_id, COUNT(*) AS n
			FROM new_order
			GROUP BY no_w_id, no_d_id
			HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)`,
	},
	{
		Condition: Condition{4, "sum(O_OL_CNT) = count(ORDER-LINE)"},
		unit:      "district", keys: []string{"w", "d"},
		cols: []column{{"sum(o_ol_cnt)", kInt}, {"count(order_line)", kInt}},
		sql: `SELECT d.d_w_id, d.d_id, COALESCE(o.s, 0) AS sum_ol_cnt, COALESCE(l.n, 0) AS n_lines
			FROM district d
			LEFT JOIN (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o
			  ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
			LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id) l
			  ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id
			WHERE COALESCE(o.s, 0) <> COALESCE(l.n, 0)`,
	},
	{
		Condition: Condition{5, "O_CARRIER_ID null iff NEW-ORDER row"},
		unit:      "order", keys: []string{"w", "d", "o"},
		cols: []column{{"o_carrier_id", kInt}, {"new_order rows", kInt}},
		sql: `SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_carrier_id,
			  CASE WHEN n.no_o_id IS NULL THEN 0 ELSE 1 END AS n_new_order
			FROM orders o
			LEFT JOIN new_order n
			  ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
			WHERE (o.o_carrier_id IS NULL AND n.no_o_id IS NULL)
			   OR (o.o_carrier_id IS NOT NULL AND n.no_o_id IS NOT NULL)`,
	},
	{
		Condition: Condition{6, "O_OL_CNT = count(ORDER-LINE) per order"},
		unit:      "order", keys: []string{"w", "d", "o"},
		cols: []column{{"o_ol_cnt", kInt}, {"count(order_line)", kInt}},
		sql: `SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_ol_cnt, COALESCE(l.n, 0) AS n_lines
			FROM orders o
			LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS n FROM order_line
			           GROUP BY ol_w_id, ol_d_id, ol_o_id) l
			  ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
			WHERE o.o_ol_cnt <> COALESCE(l.n, 0)`,
	},
	{
		// Reported per order, driven from orders: probing the lines of each
		// order is three times faster on SQLite than probing the order of
		// each line, and each half of the UNION is a semi-join elsewhere.
		Condition: Condition{7, "OL_DELIVERY_D null iff O_CARRIER_ID null"},
		unit:      "order", keys: []string{"w", "d", "o"},
		cols: []column{{"o_carrier_id", kInt}, {"has lines", kText}},
		sql: `SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_carrier_id, 'with ol_delivery_d' AS line_state
			FROM orders o
			WHERE o.o_carrier_id IS NULL AND EXISTS (SELECT 1 FROM order_line l
			  WHERE ` + linesOfOrder + ` AND l.ol_delivery_d IS NOT NULL)
			UNION ALL
			SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_carrier_id, 'without ol_delivery_d' AS line_state
			FROM orders o
			WHERE o.o_carrier_id IS NOT NULL AND EXISTS (SELECT 1 FROM order_line l
			  WHERE ` + linesOfOrder + ` AND l.ol_delivery_d IS NULL)`,
	},
	{
		Condition: Condition{8, "W_YTD = sum(H_AMOUNT)"},
		unit:      "warehouse", keys: []string{"w"},
		cols: []column{{"w_ytd", kMoney}, {"sum(h_amount)", kMoney}},
		sql: `SELECT w.w_id, w.w_ytd, COALESCE(h.s, 0) AS sum_h_amount
			FROM warehouse w
			LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id) h
			  ON h.h_w_id = w.w_id
			WHERE ROUND(w.w_ytd, 2) <> ROUND(COALESCE(h.s, 0), 2)`,
	},
	{
		Condition: Condition{9, "D_YTD = sum(H_AMOUNT)"},
		unit:      "district", keys: []string{"w", "d"},
		cols: []column{{"d_ytd", kMoney}, {"sum(h_amount)", kMoney}},
		sql: `SELECT d.d_w_id, d.d_id, d.d_ytd, COALESCE(h.s, 0) AS sum_h_amount
			FROM district d
			LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h
			  ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
			WHERE ROUND(d.d_ytd, 2) <> ROUND(COALESCE(h.s, 0), 2)`,
	},
	{
		Condition: Condition{10, "C_BALANCE = sum(OL_AMOUNT) - sum(H_AMOUNT)"},
		unit:      "customer", keys: []string{"w", "d", "c"},
		cols: []column{{"c_balance", kMoney}, {"sum(ol_amount)", kMoney}, {"sum(h_amount)", kMoney}},
		sql: `SELECT c.c_w_id, c.c_d_id, c.c_id, c.c_balance,
			  COALESCE(ol.s, 0) AS sum_ol_amount, COALESCE(h.s, 0) AS sum_h_amount
			FROM customer c
			LEFT JOIN (` + deliveredPerCustomer + `) ol ON ` + onCustomer + `
			LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) AS s FROM history
			           GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
			  ON h.h_c_w_id = c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id
			WHERE ROUND(c.c_balance, 2) <> ROUND(COALESCE(ol.s, 0) - COALESCE(h.s, 0), 2)`,
	},
	{
		Condition: Condition{11, "count(ORDER) - count(NEW-ORDER) = 2100"},
		freshOnly: true,
		unit:      "district", keys: []string{"w", "d"},
		cols: []column{{"count(orders)", kInt}, {"count(new_order)", kInt}},
		sql: `SELECT d.d_w_id, d.d_id, COALESCE(o.n, 0) AS n_orders, COALESCE(n.n, 0) AS n_new_orders
			FROM district d
			LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) AS n FROM orders GROUP BY o_w_id, o_d_id) o
			  ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
			LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) n
			  ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
			WHERE COALESCE(o.n, 0) - COALESCE(n.n, 0) <> ` + strconv.Itoa(InitialDelivered),
	},
	{
		Condition: Condition{12, "C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT)"},
		unit:      "customer", keys: []string{"w", "d", "c"},
		cols: []column{{"c_balance", kMoney}, {"c_ytd_payment", kMoney}, {"sum(ol_amount)", kMoney}},
		sql: `SELECT c.c_w_id, c.c_d_id, c.c_id, c.c_balance, c.c_ytd_payment,
			  COALESCE(ol.s, 0) AS sum_ol_amount
			FROM customer c
			LEFT JOIN (` + deliveredPerCustomer + `) ol ON ` + onCustomer + `
			WHERE ROUND(c.c_balance + c.c_ytd_payment, 2) <> ROUND(COALESCE(ol.s, 0), 2)`,
	},
}
