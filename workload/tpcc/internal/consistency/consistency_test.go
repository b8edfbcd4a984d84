package consistency_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpcc/internal/consistency"
	"github.com/dbarena/dbarena/workload/tpcc/internal/gen"
	"github.com/dbarena/dbarena/workload/tpcc/internal/schema"
)

// open opens tg and returns one connection, both closed when t ends.
func open(t testing.TB, tg engine.Target) engine.SQLConn {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, tg, engine.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("open %s: %v", tg.Redacted(), err)
	}
	t.Cleanup(func() { e.Close() })
	c, err := engine.ConnectSQL(ctx, e)
	if err != nil {
		t.Fatalf("connect %s: %v", tg.Redacted(), err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// load fills c with the initial population of warehouses from … to.
// With from = 1 it creates the tables first (and loads item), and their
// indexes after the load. The rows of a warehouse do not depend on how
// many there are, so warehouses can be added later.
func load(t testing.TB, c engine.SQLConn, from, to int) {
	t.Helper()
	ctx := context.Background()
	cfg := gen.Config{Seed: 1, Warehouses: to, Now: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}
	start := time.Now()
	r := c.Dialect().(engine.SchemaRenderer)
	for _, tb := range schema.Tables {
		if from == 1 {
			for _, stmt := range r.CreateTableSQL(tb) {
				if err := c.Exec(ctx, stmt); err != nil {
					t.Fatalf("create %s: %v", tb.Name, err)
				}
			}
		}
		for w := from; w <= to; w++ {
			if tb.Name == schema.Item && from > 1 {
				break
			}
			if _, err := c.BulkLoad(ctx, tb.Name, tb.ColumnNames(), cfg.Rows(tb.Name, w)); err != nil {
				t.Fatalf("load %s, warehouse %d: %v", tb.Name, w, err)
			}
			if tb.Name == schema.Item {
				break
			}
		}
	}
	if from == 1 {
		for _, tb := range schema.Tables {
			for _, stmt := range r.AfterLoadSQL(tb) {
				if err := c.Exec(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
		}
	}
	t.Logf("loaded warehouses %d to %d in %v", from, to, time.Since(start).Round(time.Millisecond))
}

// numbers are the condition numbers of ps.
func numbers(ps []workload.Problem) []int {
	out := []int{}
	for _, p := range ps {
		out = append(out, consistency.Number(p))
	}
	return out
}

// deliver delivers order (1, d, o) the way the Delivery transaction does:
// carrier, new_order row, delivery dates, customer balance.
func deliver(d, o int) []string {
	order := fmt.Sprintf("o_w_id = 1 AND o_d_id = %d AND o_id = %d", d, o)
	lines := fmt.Sprintf("ol_w_id = 1 AND ol_d_id = %d AND ol_o_id = %d", d, o)
	return []string{
		"UPDATE orders SET o_carrier_id = 7 WHERE " + order,
		fmt.Sprintf("DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = %d AND no_o_id = %d", d, o),
		"UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE " + lines,
		fmt.Sprintf(`UPDATE customer SET c_balance = c_balance + (SELECT SUM(ol_amount) FROM order_line WHERE %s),
			c_delivery_cnt = c_delivery_cnt + 1
			WHERE c_w_id = 1 AND c_d_id = %d AND c_id = (SELECT o_c_id FROM orders WHERE %s)`, lines, d, order),
	}
}

// A corruption changes the fresh data of warehouse 1 so that exactly the
// conditions want are violated, whether condition 11 is checked (fresh)
// or not. detail holds a regular expression for the Detail of each
// violated condition.
type corruption struct {
	name   string
	fresh  bool
	sql    []string
	want   []int
	detail []string
}

// History rows for a customer that does not exist (c_id 0) count towards
// their warehouse and district (conditions 8 and 9) but no customer's
// balance (condition 10); with h_d_id 0 they count towards no district.
const historyInsert = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
	VALUES (0, %[1]d, 1, %[1]d, 1, CURRENT_TIMESTAMP, %[2]s, 'corrupt')`

// undelivered is the Detail of one delivered order of district (1, 6)
// whose lines lost their delivery date (condition 7).
func undelivered(o int) string {
	return fmt.Sprintf(`order w=1 d=6 o=%d: o_carrier_id \d+, has lines without ol_delivery_d`, o)
}

var corruptions = []corruption{
	{
		name: "w_ytd_without_district", fresh: true, want: []int{1},
		sql: []string{
			"UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1",
			fmt.Sprintf(historyInsert, 0, "1.00"),
		},
		detail: []string{`warehouse 1: w_ytd 300001\.00, sum\(d_ytd\) 300000\.00 \(1 warehouse in all\)`},
	},
	{
		name: "d_next_o_id", fresh: true, want: []int{2},
		sql:    []string{"UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 4"},
		detail: []string{`district w=1 d=4: d_next_o_id 3002, max\(o_id\) 3000, max\(no_o_id\) 3000 \(1 district in all\)`},
	},
	{
		// Delivering order 2500 before 2101 … 2499 leaves a gap in
		// new_order; it breaks 11 too, which is not checked here.
		name: "new_order_gap", fresh: false, want: []int{3},
		sql:    deliver(3, 2500),
		detail: []string{`district w=1 d=3: min\(no_o_id\) 2101, max\(no_o_id\) 3000, count 899 \(1 district in all\)`},
	},
	{
		// An order line of no order counts in its district only.
		name: "orphan_order_line", fresh: true, want: []int{4},
		sql: []string{`INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
			ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (9999, 5, 1, 1, 1, 1, NULL, 5, 0, 'corrupt')`},
		detail: []string{`district w=1 d=5: sum\(o_ol_cnt\) \d+, count\(order_line\) \d+ \(1 district in all\)`},
	},
	{
		// Undelivering order 1 (its lines have ol_amount 0.00) without
		// giving it a new_order row.
		name: "undelivered_without_new_order", fresh: true, want: []int{5},
		sql: []string{
			"UPDATE orders SET o_carrier_id = NULL WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1",
			"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 1",
		},
		detail: []string{`order w=1 d=1 o=1: o_carrier_id null, new_order rows 0 \(1 order in all\)`},
	},
	{
		// Two orders of one district, o_ol_cnt +1 and -1: the district's
		// sum stays.
		name: "o_ol_cnt", fresh: true, want: []int{6},
		sql: []string{
			"UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 10",
			"UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 2200",
		},
		detail: []string{`order w=1 d=2 o=10: o_ol_cnt (\d+), count\(order_line\) \d+; ` +
			`order w=1 d=2 o=2200: o_ol_cnt \d+, count\(order_line\) \d+ \(2 orders in all\)`},
	},
	{
		// All lines of the delivered orders 1 … 20 of district (1, 6),
		// but only the first of order 3, lose their delivery date: the
		// Detail names five orders and counts twenty.
		name: "ol_delivery_d_null", fresh: true, want: []int{7},
		sql: []string{"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 6 AND " +
			"(ol_o_id <= 20 AND ol_o_id <> 3 OR ol_o_id = 3 AND ol_number = 1)"},
		detail: []string{undelivered(1) + "; " + undelivered(2) + "; " + undelivered(3) + "; " +
			undelivered(4) + "; " + undelivered(5) + `; … \(20 orders in all\)`},
	},
	{
		// Order 2100 becomes the oldest new order again, but its lines
		// stay delivered; 11 breaks too, and is not checked.
		name: "carrier_null_lines_delivered", fresh: false, want: []int{7},
		sql: []string{
			"UPDATE orders SET o_carrier_id = NULL WHERE o_w_id = 1 AND o_d_id = 6 AND o_id = 2100",
			"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (2100, 6, 1)",
		},
		detail: []string{`order w=1 d=6 o=2100: o_carrier_id null, has lines with ol_delivery_d \(1 order in all\)`},
	},
	{
		name: "history_without_district", fresh: true, want: []int{8},
		sql:    []string{fmt.Sprintf(historyInsert, 0, "2.50")},
		detail: []string{`warehouse 1: w_ytd 300000\.00, sum\(h_amount\) 300002\.50 \(1 warehouse in all\)`},
	},
	{
		name: "d_ytd_moved", fresh: true, want: []int{9},
		sql: []string{
			"UPDATE district SET d_ytd = d_ytd + 1.25 WHERE d_w_id = 1 AND d_id = 1",
			"UPDATE district SET d_ytd = d_ytd - 1.25 WHERE d_w_id = 1 AND d_id = 2",
		},
		detail: []string{`district w=1 d=1: d_ytd 30001\.25, sum\(h_amount\) 30000\.00; ` +
			`district w=1 d=2: d_ytd 29998\.75, sum\(h_amount\) 30000\.00 \(2 districts in all\)`},
	},
	{
		name: "c_balance_to_ytd_payment", fresh: true, want: []int{10},
		sql: []string{"UPDATE customer SET c_balance = c_balance - 1, c_ytd_payment = c_ytd_payment + 1 " +
			"WHERE c_w_id = 1 AND c_d_id = 3 AND c_id = 17"},
		detail: []string{`customer w=1 d=3 c=17: c_balance -11\.00, sum\(ol_amount\) 0\.00, sum\(h_amount\) 10\.00 \(1 customer in all\)`},
	},
	{
		// A Delivery keeps every condition but 11.
		name: "delivery", fresh: true, want: []int{11},
		sql:    deliver(8, 2101),
		detail: []string{`district w=1 d=8: count\(orders\) 3000, count\(new_order\) 899 \(1 district in all\)`},
	},
	{
		name: "c_ytd_payment", fresh: true, want: []int{12},
		sql:    []string{"UPDATE customer SET c_ytd_payment = c_ytd_payment + 0.01 WHERE c_w_id = 1 AND c_d_id = 9 AND c_id = 2999"},
		detail: []string{`customer w=1 d=9 c=2999: c_balance -10\.00, c_ytd_payment 10\.01, sum\(ol_amount\) 0\.00 \(1 customer in all\)`},
	},
}

// TestCheck loads one warehouse into SQLite, checks that the fresh data
// meets all twelve conditions, then applies each corruption in a
// transaction that it rolls back. Last, it adds a second warehouse and
// checks both: a query that forgot the warehouse in a key would mix them
// up.
func TestCheck(t *testing.T) {
	checkSuite(t, open(t, testdb.SQLite(t)))
}

// checkSuite runs TestCheck on an empty database.
func checkSuite(t *testing.T, c engine.SQLConn) {
	ctx := context.Background()
	load(t, c, 1, 1)
	t.Run("fresh", func(t *testing.T) { checkFresh(t, c, 1) })
	for _, tc := range corruptions {
		t.Run(fmt.Sprintf("corrupt=%s/fresh=%t", tc.name, tc.fresh), func(t *testing.T) {
			ps := corrupt(t, c, tc.sql, consistency.Options{Fresh: tc.fresh})
			if got := numbers(ps); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("violated conditions %v, want %v: %v", got, tc.want, ps)
			}
			for i, p := range ps {
				if want := regexp.MustCompile("^" + tc.detail[i] + "$"); !want.MatchString(p.Detail) {
					t.Errorf("%s:\n detail %s\n want   %s", p.Check, p.Detail, want)
				}
			}
		})
	}
	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		ps, err := consistency.Check(ctx, c)
		if !errors.Is(err, context.Canceled) || len(ps) > 0 {
			t.Errorf("Check with a canceled context = %v, %v; want context.Canceled", ps, err)
		}
	})
	t.Run("warehouses=2", func(t *testing.T) {
		load(t, c, 2, 2)
		checkFresh(t, c, 2)
	})
}

// checkFresh checks that fresh data violates no condition, 11 included,
// and logs how long that took.
func checkFresh(t *testing.T, c engine.SQLConn, warehouses int) {
	start := time.Now()
	ps, err := consistency.CheckWith(context.Background(), c, consistency.Options{Fresh: true})
	t.Logf("CheckWith(Fresh) of %d warehouses: %v", warehouses, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) > 0 {
		t.Errorf("fresh data violates %v", ps)
	}
}

// corrupt runs stmts in a transaction, checks, rolls back and returns what
// the check found.
func corrupt(t *testing.T, c engine.SQLConn, stmts []string, opts consistency.Options) []workload.Problem {
	t.Helper()
	ctx := context.Background()
	if err := c.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Rollback(ctx); err != nil {
			t.Fatalf("rollback: %v", err)
		}
	}()
	for _, s := range stmts {
		if err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	ps, err := consistency.CheckWith(ctx, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestConditions(t *testing.T) {
	cs := consistency.Conditions()
	if len(cs) != 12 {
		t.Fatalf("%d conditions, want 12", len(cs))
	}
	for i, c := range cs {
		if c.Number != i+1 || c.Name == "" {
			t.Errorf("Conditions()[%d] = %+v", i, c)
		}
		p := workload.Problem{Check: c.Check()}
		if n := consistency.Number(p); n != c.Number {
			t.Errorf("Number(%q) = %d, want %d", p.Check, n, c.Number)
		}
	}
	if n := consistency.Number(workload.Problem{Check: "condition 1"}); n != 0 {
		t.Errorf("Number of a foreign problem = %d, want 0", n)
	}
}

// BenchmarkCheck times Check on two warehouses of SQLite:
//
//	go test -run XXX -bench Check ./workload/tpcc/internal/consistency/
func BenchmarkCheck(b *testing.B) {
	ctx := context.Background()
	c := open(b, testdb.SQLite(b))
	load(b, c, 1, 2)
	b.ResetTimer()
	for b.Loop() {
		ps, err := consistency.Check(ctx, c)
		if err != nil || len(ps) > 0 {
			b.Fatalf("Check = %v, %v", ps, err)
		}
	}
}
