package procs

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

type customerRow struct {
	balance, ytdPayment     float64
	paymentCnt, deliveryCnt int64
	data                    string
}

func (v *env) customer(t *testing.T, w, d, c int) customerRow {
	t.Helper()
	var r customerRow
	v.queryRow(t, "SELECT c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
		[]any{w, d, c}, &r.balance, &r.ytdPayment, &r.paymentCnt, &r.deliveryCnt, &r.data)
	return r
}

// fixtureCustomer returns the loaded row of customer w/d/c.
func loadedCustomer(w, d, c int) customerRow {
	for _, fc := range fixtureCustomers {
		if fc.w == w && fc.d == d && fc.c == c {
			return customerRow{balance: -10, ytdPayment: 10, paymentCnt: 1, data: fc.data}
		}
	}
	panic("no such customer")
}

func sameCustomer(a, b customerRow) bool {
	return money(a.balance, b.balance) && money(a.ytdPayment, b.ytdPayment) &&
		a.paymentCnt == b.paymentCnt && a.deliveryCnt == b.deliveryCnt && a.data == b.data
}

// checkCustomers checks every customer of the data set: paid (w/d/c) ones
// against want, the others against their loaded rows.
func (v *env) checkCustomers(t *testing.T, want map[[3]int]customerRow) {
	t.Helper()
	for _, fc := range fixtureCustomers {
		key := [3]int{fc.w, fc.d, fc.c}
		w, ok := want[key]
		if !ok {
			w = loadedCustomer(fc.w, fc.d, fc.c)
		}
		if got := v.customer(t, fc.w, fc.d, fc.c); !sameCustomer(got, w) {
			t.Errorf("customer %v = %+v,\nwant %+v", key, got, w)
		}
	}
}

func TestPayment(t *testing.T) {
	t.Parallel()
	forEachServer(t, func(t *testing.T, s testServer) {
		ctx := context.Background()
		v := newEnv(t, s)
		ytds := func() (w, d1, d2 float64) {
			v.queryRow(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1", nil, &w)
			v.queryRow(t, "SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = 1", nil, &d1)
			v.queryRow(t, "SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = 2", nil, &d2)
			return
		}
		type historyRow struct {
			c, cd, cw, d, w int64
			date            time.Time
			amount          float64
			data            string
		}
		history := func() []historyRow {
			var out []historyRow
			err := v.c.QueryRows(ctx, "SELECT h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data FROM history ORDER BY h_amount", nil,
				func(r []any) error {
					out = append(out, historyRow{r[0].(int64), r[1].(int64), r[2].(int64), r[3].(int64), r[4].(int64), r[5].(time.Time), r[6].(float64), r[7].(string)})
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		paid := map[[3]int]customerRow{}

		t.Run("by-id-bad-credit", func(t *testing.T) {
			if err := v.k.PaymentTx(ctx, 1, 1, 1, 1, 1, "", 12.5, t1); err != nil {
				t.Fatal(err)
			}
			w, d1, d2 := ytds()
			if !money(w, 300012.50) || !money(d1, 30012.50) || !money(d2, 30000) {
				t.Errorf("w_ytd %v, d_ytd %v %v; want 300012.50, 30012.50, 30000", w, d1, d2)
			}
			// c_data gets "c_id c_d_id c_w_id d_id w_id amount " in front and
			// is cut to 500 characters.
			data := ("1 1 1 1 1 12.50 " + aliceData)[:500]
			paid[[3]int{1, 1, 1}] = customerRow{balance: -22.50, ytdPayment: 22.50, paymentCnt: 2, data: data}
			v.checkCustomers(t, paid)
			h := history()
			if len(h) != 1 {
				t.Fatalf("%d history rows, want 1", len(h))
			}
			if want := (historyRow{1, 1, 1, 1, 1, t1, 12.50, "W-one    D-one"}); h[0].c != want.c || h[0].cd != want.cd ||
				h[0].cw != want.cw || h[0].d != want.d || h[0].w != want.w || !h[0].date.Equal(want.date) ||
				!money(h[0].amount, want.amount) || h[0].data != want.data {
				t.Errorf("history %+v, want %+v", h[0], want)
			}
		})

		t.Run("by-name-middle-of-3", func(t *testing.T) {
			// Paid at district 2 by a customer of district 1. Ann, Bob, Carl
			// are OUGHTPRES in 1/1 (Aaron, in 1/2, is not counted): Bob is at
			// position ceil(3/2) = 2.
			if err := v.k.PaymentTx(ctx, 1, 2, 1, 1, 0, "OUGHTPRES", 100, t1); err != nil {
				t.Fatal(err)
			}
			w, d1, d2 := ytds()
			if !money(w, 300112.50) || !money(d1, 30012.50) || !money(d2, 30100) {
				t.Errorf("w_ytd %v, d_ytd %v %v; want 300112.50, 30012.50, 30100", w, d1, d2)
			}
			paid[[3]int{1, 1, 2}] = customerRow{balance: -110, ytdPayment: 110, paymentCnt: 2, data: "bob data"} // good credit: c_data kept
			v.checkCustomers(t, paid)
			h := history()
			if len(h) != 2 || h[1].c != 2 || h[1].cd != 1 || h[1].d != 2 || h[1].data != "W-one    D-two" {
				t.Errorf("history %+v; want a second row for customer 2 of district 1 paid at district 2, h_data \"W-one    D-two\"", h)
			}
		})

		t.Run("by-name-first-of-2", func(t *testing.T) {
			// Max and Zed are ABLEABLE in 1/2: ceil(2/2) = 1 is Max (c 2).
			if err := v.k.PaymentTx(ctx, 1, 2, 1, 2, 0, "ABLEABLE", 1000.004, t1); err != nil {
				t.Fatal(err)
			}
			paid[[3]int{1, 2, 2}] = customerRow{balance: -1010, ytdPayment: 1010, paymentCnt: 2, data: "max data"}
			v.checkCustomers(t, paid)
		})

		t.Run("missing-customer", func(t *testing.T) {
			before := dump(t, v.c)
			if err := v.k.PaymentTx(ctx, 1, 1, 1, 1, 0, "NOBODY", 5, t1); err == nil {
				t.Error("Payment to an unknown last name succeeded")
			}
			if err := v.k.PaymentTx(ctx, 1, 1, 1, 1, 77, "", 5, t1); err == nil {
				t.Error("Payment to an unknown customer id succeeded")
			}
			sameDump(t, before, dump(t, v.c)) // the warehouse and district updates are undone
		})
	})
}

func TestOrderStatus(t *testing.T) {
	t.Parallel()
	forEachServer(t, func(t *testing.T, s testServer) {
		ctx := context.Background()
		v := newEnv(t, s)
		before := dump(t, v.c)
		for _, c := range []struct {
			name      string
			d, c      int64
			last      string
			wantLines int64
		}{
			{"by-id", 1, 1, "", 3},                        // newest order of 1/1/1 is 3, three lines
			{"by-name-middle-of-3", 1, 0, "OUGHTPRES", 2}, // Bob: order 2
			{"by-name-first-of-2", 2, 0, "ABLEABLE", 1},   // Max: order 22
			{"no-orders", 1, 4, "", 0},                    // Ann has none
		} {
			t.Run(c.name, func(t *testing.T) {
				if err := v.k.OrderStatusTx(ctx, 1, c.d, c.c, c.last); err != nil {
					t.Fatal(err)
				}
				var lines int64
				if err := v.k.OrderStatus.QueryRow(ctx, []any{1, c.d, c.c, c.last}, &lines); err != nil {
					t.Fatal(err)
				}
				if lines != c.wantLines {
					t.Errorf("%d order lines read, want %d", lines, c.wantLines)
				}
			})
		}
		if err := v.k.OrderStatusTx(ctx, 1, 1, 0, "NOBODY"); err == nil {
			t.Error("Order-Status of an unknown last name succeeded")
		}
		sameDump(t, before, dump(t, v.c))
		// Order-Status sees the order a New-Order just wrote.
		if _, err := v.k.NewOrderTx(ctx, 1, 1, 4, []int64{1, 2, 3, 4}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, t1); err != nil {
			t.Fatal(err)
		}
		var lines int64
		if err := v.k.OrderStatus.QueryRow(ctx, []any{1, 1, 4, ""}, &lines); err != nil || lines != 4 {
			t.Errorf("after New-Order: %d lines, %v; want 4", lines, err)
		}
	})
}

func TestDelivery(t *testing.T) {
	t.Parallel()
	forEachServer(t, func(t *testing.T, s testServer) {
		ctx := context.Background()
		v := newEnv(t, s)
		newOrders := func() []int64 {
			var out []int64
			err := v.c.QueryRows(ctx, "SELECT no_d_id * 100 + no_o_id FROM new_order WHERE no_w_id = 1 ORDER BY 1", nil, func(r []any) error {
				out = append(out, r[0].(int64))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		checkOrder := func(t *testing.T, d, o int, carrier int64, date time.Time) {
			t.Helper()
			var got sql.NullInt64
			v.queryRow(t, "SELECT o_carrier_id FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ?", []any{d, o}, &got)
			if !got.Valid || got.Int64 != carrier {
				t.Errorf("order 1/%d/%d: carrier %v, want %d", d, o, got, carrier)
			}
			err := v.c.QueryRows(ctx, "SELECT ol_number, ol_delivery_d FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ?", []any{d, o},
				func(r []any) error {
					if dd, ok := r[1].(time.Time); !ok || !dd.Equal(date) {
						t.Errorf("order 1/%d/%d line %v: delivery date %v, want %v", d, o, r[0], r[1], date)
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
		}
		undelivered := func(t *testing.T, d, o int) {
			t.Helper()
			if n := v.count(t, "SELECT count(*) FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ? AND o_carrier_id IS NULL", d, o); n != 1 {
				t.Errorf("order 1/%d/%d has a carrier", d, o)
			}
			if n := v.count(t, "SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ? AND ol_delivery_d IS NOT NULL", d, o); n != 0 {
				t.Errorf("order 1/%d/%d has %d delivered lines", d, o, n)
			}
		}
		want := map[[3]int]customerRow{}

		t.Run("first", func(t *testing.T) {
			if err := v.k.DeliveryTx(ctx, 1, 7, t1); err != nil {
				t.Fatal(err)
			}
			// The oldest new order of each district is gone; districts 3..10
			// have none and are skipped.
			if got := newOrders(); len(got) != 2 || got[0] != 103 || got[1] != 222 {
				t.Errorf("new_order rows (d*100+o) %v, want [103 222]", got)
			}
			checkOrder(t, 1, 2, 7, t1)
			checkOrder(t, 2, 21, 7, t1)
			undelivered(t, 1, 3)
			undelivered(t, 2, 22)
			// 1/1/2 is Bob's: 3 × 12.25 + 4 × 13.25 = 89.75.
			// 1/2/21 is Zed's: 1 × 9.25.
			want[[3]int{1, 1, 2}] = customerRow{balance: -10 + 89.75, ytdPayment: 10, paymentCnt: 1, deliveryCnt: 1, data: "bob data"}
			want[[3]int{1, 2, 1}] = customerRow{balance: -10 + 9.25, ytdPayment: 10, paymentCnt: 1, deliveryCnt: 1, data: "zed data"}
			v.checkCustomers(t, want)
		})

		t.Run("second", func(t *testing.T) {
			t2 := t1.Add(time.Hour)
			if err := v.k.DeliveryTx(ctx, 1, 8, t2); err != nil {
				t.Fatal(err)
			}
			if got := newOrders(); len(got) != 0 {
				t.Errorf("new_order rows left: %v", got)
			}
			checkOrder(t, 1, 2, 7, t1) // delivered before: unchanged
			checkOrder(t, 1, 3, 8, t2)
			checkOrder(t, 2, 22, 8, t2)
			// 1/1/3 is Alice's: 14.25 + 2 × 15.25 + 5 × 16.25 = 126.
			// 1/2/22 is Max's: 10.25.
			want[[3]int{1, 1, 1}] = customerRow{balance: -10 + 126, ytdPayment: 10, paymentCnt: 1, deliveryCnt: 1, data: aliceData}
			want[[3]int{1, 2, 2}] = customerRow{balance: -10 + 10.25, ytdPayment: 10, paymentCnt: 1, deliveryCnt: 1, data: "max data"}
			v.checkCustomers(t, want)
		})

		t.Run("nothing-left", func(t *testing.T) {
			before := dump(t, v.c)
			if err := v.k.DeliveryTx(ctx, 1, 9, t1); err != nil {
				t.Fatal(err)
			}
			var delivered int64
			if err := v.k.Delivery.QueryRow(ctx, []any{1, 9, t1}, &delivered); err != nil || delivered != 0 {
				t.Errorf("delivered %d districts, %v; want 0", delivered, err)
			}
			sameDump(t, before, dump(t, v.c))
		})
	})
}

func TestStockLevel(t *testing.T) {
	t.Parallel()
	forEachServer(t, func(t *testing.T, s testServer) {
		ctx := context.Background()
		v := newEnv(t, s)
		before := dump(t, v.c)
		for _, c := range []struct {
			d, threshold, want int64
		}{
			// District 1, orders 1..3: items 11 12 13 14 15 16; only item 15
			// (3) is below 20, all are below 51.
			{1, 20, 1},
			{1, 51, 6},
			{1, 3, 0},
			// District 2, next order 23: orders 3..22 hold items 1..10 with
			// stock 12 14 16 18 20 …; items 19 and 20 (stock 5) are in orders
			// 1 and 2, outside the last 20.
			{2, 20, 4},
			{2, 21, 5},
			{2, 100, 10},
		} {
			got, err := v.k.StockLevelTx(ctx, 1, c.d, c.threshold)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("district %d, threshold %d: %d, want %d", c.d, c.threshold, got, c.want)
			}
		}
		if _, err := v.k.StockLevelTx(ctx, 1, 9, 20); err == nil {
			t.Error("Stock-Level of a missing district succeeded")
		}
		sameDump(t, before, dump(t, v.c))
		// A New-Order moves the window: order 23 of district 2 drops order
		// 3 (item 1) and adds items 19 (stock 5) and 2.
		if _, err := v.k.NewOrderTx(ctx, 1, 2, 1, []int64{19, 2}, []int64{1, 1}, []int64{1, 1}, t1); err != nil {
			t.Fatal(err)
		}
		// Item 19 is now at 5-1+91 = 95 and item 2 at 13: below 20 are
		// items 1 (still in order 13), 2, 3, 4.
		if got, err := v.k.StockLevelTx(ctx, 1, 2, 20); err != nil || got != 4 {
			t.Errorf("after New-Order: %d, %v; want 4", got, err)
		}
		if got, err := v.k.StockLevelTx(ctx, 1, 2, 96); err != nil || got != 11 {
			t.Errorf("after New-Order, threshold 96: %d, %v; want 11", got, err)
		}
	})
}
