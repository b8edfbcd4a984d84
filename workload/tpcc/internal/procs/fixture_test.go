package procs

import (
	"context"
	"fmt"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/mysql"
	_ "github.com/dbarena/dbarena/engine/postgres"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload/tpcc/internal/schema"
)

// The integration tests run the procedures on the PostgreSQL and MariaDB
// test servers of internal/testdb, each test in a fresh schema or database
// holding the small hand-made data set below, where every expected value
// can be worked out by hand.
//
// Data set:
//
//	warehouse 1 "W-one" (w_tax .1, w_ytd 300000); warehouse 2 "W-two" (no districts)
//	district 1/1 "D-one" d_next_o_id 4; district 1/2 "D-two" d_next_o_id 23
//	customers 1/1: 1 Alice BARBARBAR (BC), 2 Bob, 3 Carl, 4 Ann OUGHTPRES
//	customers 1/2: 1 Zed, 2 Max ABLEABLE, 3 Aaron OUGHTPRES
//	items 1..20, i_price = i + .25
//	stock w1: s_quantity 10+2i for i <= 10, 3 for item 15, 5 for items 19 and 20, else 50
//	stock w2: s_quantity 1; s_dist_XX = "w<w>-i<ii>-d<dd>"
//	orders 1/1: 1 (c1, delivered: items 11×2, 15×1), 2 (c2: 12×3, 13×4), 3 (c1: 14×1, 15×2, 16×5)
//	orders 1/2: 1..22, customer 1 for odd, 2 for even ids, one line each, quantity 1:
//	            order 1 item 19, order 2 item 20, order o >= 3 item (o-3)%10+1;
//	            orders up to 20 delivered
//	new_order: 1/1/2, 1/1/3, 1/2/21, 1/2/22
//	customers: c_balance -10, c_ytd_payment 10, c_payment_cnt 1, c_delivery_cnt 0

// t0 is the entry date of the loaded orders.
var t0 = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func price(i int) float64 { return float64(i) + 0.25 }

func stockQuantity(w, i int) int {
	switch {
	case w == 2:
		return 1
	case i <= 10:
		return 10 + 2*i
	case i == 15:
		return 3
	case i == 19 || i == 20:
		return 5
	}
	return 50
}

func distInfo(w, i, d int) string { return fmt.Sprintf("w%d-i%02d-d%02d", w, i, d) }

// aliceData is customer 1/1/1's c_data: long enough that Payment's prefix
// pushes it past 500 characters.
var aliceData = strings.Repeat("abcdefghij", 49) + "12345"

type fixtureCustomer struct {
	w, d, c      int
	first, last  string
	credit, data string
}

var fixtureCustomers = []fixtureCustomer{
	{1, 1, 1, "Alice", "BARBARBAR", "BC", aliceData},
	{1, 1, 2, "Bob", "OUGHTPRES", "GC", "bob data"},
	{1, 1, 3, "Carl", "OUGHTPRES", "GC", "carl data"},
	{1, 1, 4, "Ann", "OUGHTPRES", "GC", "ann data"},
	{1, 2, 1, "Zed", "ABLEABLE", "GC", "zed data"},
	{1, 2, 2, "Max", "ABLEABLE", "GC", "max data"},
	{1, 2, 3, "Aaron", "OUGHTPRES", "GC", "aaron data"},
}

type fixtureLine struct{ item, qty int }

type fixtureOrder struct {
	d, o, c   int
	delivered bool
	lines     []fixtureLine
}

func fixtureOrders() []fixtureOrder {
	out := []fixtureOrder{
		{1, 1, 1, true, []fixtureLine{{11, 2}, {15, 1}}},
		{1, 2, 2, false, []fixtureLine{{12, 3}, {13, 4}}},
		{1, 3, 1, false, []fixtureLine{{14, 1}, {15, 2}, {16, 5}}},
	}
	for o := 1; o <= 22; o++ {
		item := (o-3)%10 + 1
		switch o {
		case 1:
			item = 19
		case 2:
			item = 20
		}
		c := 2
		if o%2 == 1 {
			c = 1
		}
		out = append(out, fixtureOrder{2, o, c, o <= 20, []fixtureLine{{item, 1}}})
	}
	return out
}

// fixtureRows is the data set, table by table, in schema column order.
func fixtureRows() map[string][][]any {
	rows := map[string][][]any{}
	add := func(table string, vals ...any) { rows[table] = append(rows[table], vals) }
	for i := 1; i <= 20; i++ {
		add(schema.Item, i, 1000+i, fmt.Sprintf("item-%02d", i), price(i), fmt.Sprintf("idata-%02d", i))
	}
	add(schema.Warehouse, 1, "W-one", "w street 1", "w street 2", "w city", "WS", "123451111", 0.1, 300000.0)
	add(schema.Warehouse, 2, "W-two", "w street 1", "w street 2", "w city", "WS", "123452222", 0.05, 300000.0)
	for w := 1; w <= 2; w++ {
		for i := 1; i <= 20; i++ {
			vals := []any{i, w, stockQuantity(w, i)}
			for d := 1; d <= 10; d++ {
				vals = append(vals, distInfo(w, i, d))
			}
			vals = append(vals, 0, 0, 0, "sdata")
			add(schema.Stock, vals...)
		}
	}
	add(schema.District, 1, 1, "D-one", "d street 1", "d street 2", "d city", "DS", "123451111", 0.05, 30000.0, 4)
	add(schema.District, 2, 1, "D-two", "d street 1", "d street 2", "d city", "DS", "123451111", 0.07, 30000.0, 23)
	for _, c := range fixtureCustomers {
		add(schema.Customer, c.c, c.d, c.w, c.first, "OE", c.last, "c street 1", "c street 2", "c city", "CS",
			"123451111", "0123456789012345", t0, c.credit, 50000.0, 0.1, -10.0, 10.0, 1, 0, c.data)
	}
	for _, o := range fixtureOrders() {
		var carrier, delivery any
		if o.delivered {
			carrier, delivery = 3, t0
		} else {
			add(schema.NewOrder, o.o, o.d, 1)
		}
		add(schema.Orders, o.o, o.d, 1, o.c, t0, carrier, len(o.lines), 1)
		for n, l := range o.lines {
			add(schema.OrderLine, o.o, o.d, 1, n+1, l.item, 1, delivery, l.qty, float64(l.qty)*price(l.item), distInfo(1, l.item, o.d))
		}
	}
	return rows
}

// sliceSource is an engine.RowSource over rows.
type sliceSource struct {
	rows [][]any
	i    int
}

func (s *sliceSource) Next() bool             { s.i++; return s.i <= len(s.rows) }
func (s *sliceSource) Values() ([]any, error) { return s.rows[s.i-1], nil }
func (s *sliceSource) Err() error             { return nil }

// env is one test's database: a fresh schema or database with the data set
// loaded and the procedures installed.
type env struct {
	target engine.Target
	e      engine.Engine
	c      engine.SQLConn // the connection k was prepared on
	k      *Calls
}

type testServer struct {
	name   string
	target func(t *testing.T) engine.Target
}

var servers = []testServer{
	{"postgres", func(t *testing.T) engine.Target { return testdb.Postgres(t) }},
	{"mysql", func(t *testing.T) engine.Target { return testdb.MySQL(t) }},
}

// forEachServer runs f as one parallel subtest per server, named
// engine=<name>.
func forEachServer(t *testing.T, f func(t *testing.T, s testServer)) {
	for _, s := range servers {
		t.Run("engine="+s.name, func(t *testing.T) {
			t.Parallel()
			f(t, s)
		})
	}
}

// createSchema creates the nine tables with their keys and secondary
// indexes.
func createSchema(t *testing.T, c engine.SQLConn) {
	t.Helper()
	ctx := context.Background()
	r := c.Dialect().(engine.SchemaRenderer)
	for _, tb := range schema.Tables {
		for _, stmt := range append(r.CreateTableSQL(tb), r.AfterLoadSQL(tb)...) {
			if err := c.Exec(ctx, stmt); err != nil {
				t.Fatalf("creating %s: %s: %v", tb.Name, stmt, err)
			}
		}
	}
}

// newEnv creates a fresh database on s with the data set and the
// procedures.
func newEnv(t *testing.T, s testServer) *env {
	t.Helper()
	ctx := context.Background()
	target := testdb.Isolated(t, s.target(t))
	e := enginetest.Open(t, target)
	c := enginetest.Connect(t, e)
	createSchema(t, c)
	rows := fixtureRows()
	for _, tb := range schema.Tables {
		if _, err := c.BulkLoad(ctx, tb.Name, tb.ColumnNames(), &sliceSource{rows: rows[tb.Name]}); err != nil {
			t.Fatalf("loading %s: %v", tb.Name, err)
		}
	}
	if err := Install(ctx, c); err != nil {
		t.Fatalf("Install: %v", err)
	}
	k, err := Prepare(ctx, c)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return &env{target: target, e: e, c: c, k: k}
}

// queryRow runs a check query on env's connection.
func (v *env) queryRow(t *testing.T, sql string, args []any, dest ...any) {
	t.Helper()
	if err := v.c.QueryRow(context.Background(), sql, args, dest...); err != nil {
		t.Fatalf("%s %v: %v", sql, args, err)
	}
}

func (v *env) count(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	v.queryRow(t, sql, args, &n)
	return n
}

// dump renders every row of every table, sorted, one string per table.
func dump(t *testing.T, c engine.SQLConn) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tb := range schema.Tables {
		var lines []string
		err := c.QueryRows(context.Background(), "SELECT * FROM "+tb.Name, nil, func(row []any) error {
			lines = append(lines, fmt.Sprint(row...))
			return nil
		})
		if err != nil {
			t.Fatalf("dumping %s: %v", tb.Name, err)
		}
		sort.Strings(lines)
		out[tb.Name] = strings.Join(lines, "\n")
	}
	return out
}

// sameDump reports every table whose rows differ between before and after.
func sameDump(t *testing.T, before, after map[string]string) {
	t.Helper()
	for _, tb := range schema.Tables {
		if before[tb.Name] != after[tb.Name] {
			t.Errorf("table %s changed:\nbefore:\n%s\nafter:\n%s", tb.Name, before[tb.Name], after[tb.Name])
		}
	}
}

// trim drops CHAR padding, which PostgreSQL returns and MySQL does not.
func trim(s string) string { return strings.TrimRight(s, " ") }

// money compares two amounts to the cent.
func money(a, b float64) bool {
	d := a - b
	return d > -0.005 && d < 0.005
}
