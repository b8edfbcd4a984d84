package procs

import (
	"context"
	"database/sql"
	"errors"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"testing"
	"time"
)

var t1 = time.Date(2024, 6, 7, 8, 9, 10, 123456000, time.UTC)

type stockRow struct {
	quantity, ytd, orderCnt, remoteCnt int64
}

func (v *env) stock(t *testing.T, w, i int) stockRow {
	t.Helper()
	var s stockRow
	v.queryRow(t, "SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock WHERE s_w_id = ? AND s_i_id = ?",
		[]any{w, i}, &s.quantity, &s.ytd, &s.orderCnt, &s.remoteCnt)
	return s
}

func (v *env) nextOID(t *testing.T, w, d int) int64 {
	t.Helper()
	return v.count(t, "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?", w, d)
}

func TestNewOrder(t *testing.T) {
	t.Parallel()
	forEachServer(t, func(t *testing.T, s testServer) {
		ctx := context.Background()
		v := newEnv(t, s)

		t.Run("remote", func(t *testing.T) {
			rolledBack, err := v.k.NewOrderTx(ctx, 1, 1, 1,
				[]int64{1, 4, 6, 12}, []int64{1, 1, 1, 2}, []int64{5, 8, 3, 1}, t1)
			if err != nil || rolledBack {
				t.Fatalf("NewOrderTx = %v, %v; want false, nil", rolledBack, err)
			}
			if got := v.nextOID(t, 1, 1); got != 5 {
				t.Errorf("d_next_o_id = %d, want 5", got)
			}
			var cID, olCnt, allLocal int64
			var carrier sql.NullInt64
			var entry time.Time
			v.queryRow(t, "SELECT o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 4",
				nil, &cID, &entry, &carrier, &olCnt, &allLocal)
			if cID != 1 || !entry.Equal(t1) || carrier.Valid || olCnt != 4 || allLocal != 0 {
				t.Errorf("order = c %d, entry %v, carrier %v, ol_cnt %d, all_local %d; want 1, %v, NULL, 4, 0",
					cID, entry, carrier, olCnt, allLocal, t1)
			}
			if n := v.count(t, "SELECT count(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 4"); n != 1 {
				t.Errorf("%d new_order rows for order 4, want 1", n)
			}
			want := []struct {
				item, supply, qty int64
				amount            float64
				dist              string
			}{
				{1, 1, 5, 6.25, "w1-i01-d01"},
				{4, 1, 8, 34.00, "w1-i04-d01"},
				{6, 1, 3, 18.75, "w1-i06-d01"},
				{12, 2, 1, 12.25, "w2-i12-d01"},
			}
			var n int
			err = v.c.QueryRows(ctx, "SELECT ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info, ol_delivery_d FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 4 ORDER BY ol_number", nil,
				func(row []any) error {
					if n >= len(want) {
						n++
						return nil
					}
					w := want[n]
					n++
					if row[0] != int64(n) || row[1] != w.item || row[2] != w.supply || row[3] != w.qty ||
						!money(row[4].(float64), w.amount) || trim(row[5].(string)) != w.dist || row[6] != nil {
						t.Errorf("order line %d = %v, want %d %+v and no delivery date", n, row, n, w)
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			if n != len(want) {
				t.Errorf("%d order lines, want %d", n, len(want))
			}
			for _, c := range []struct {
				w, i int
				want stockRow
			}{
				{1, 1, stockRow{12 - 5 + 91, 5, 1, 0}}, // 7 would be below 10: +91
				{1, 4, stockRow{18 - 8, 8, 1, 0}},      // exactly 10: no wrap
				{1, 6, stockRow{22 - 3, 3, 1, 0}},
				{2, 12, stockRow{1 - 1 + 91, 1, 1, 1}}, // remote
				{1, 12, stockRow{50, 0, 0, 0}},         // untouched
			} {
				if got := v.stock(t, c.w, c.i); got != c.want {
					t.Errorf("stock %d/%d = %+v, want %+v", c.w, c.i, got, c.want)
				}
			}
		})

		t.Run("local", func(t *testing.T) {
			rolledBack, err := v.k.NewOrderTx(ctx, 1, 2, 3, []int64{2, 3}, []int64{1, 1}, []int64{1, 10}, t1)
			if err != nil || rolledBack {
				t.Fatalf("NewOrderTx = %v, %v; want false, nil", rolledBack, err)
			}
			if got := v.nextOID(t, 1, 2); got != 24 {
				t.Errorf("d_next_o_id = %d, want 24", got)
			}
			if got := v.nextOID(t, 1, 1); got != 5 {
				t.Errorf("district 1: d_next_o_id = %d, want 5 (unchanged)", got)
			}
			var cID, olCnt, allLocal int64
			v.queryRow(t, "SELECT o_c_id, o_ol_cnt, o_all_local FROM orders WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 23", nil, &cID, &olCnt, &allLocal)
			if cID != 3 || olCnt != 2 || allLocal != 1 {
				t.Errorf("order 1/2/23 = c %d, ol_cnt %d, all_local %d; want 3, 2, 1", cID, olCnt, allLocal)
			}
			var dist string
			var amount float64
			v.queryRow(t, "SELECT ol_dist_info, ol_amount FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id = 23 AND ol_number = 2", nil, &dist, &amount)
			if trim(dist) != "w1-i03-d02" || !money(amount, 32.50) {
				t.Errorf("line 2 = %q, %v; want w1-i03-d02, 32.50", dist, amount)
			}
			if got, want := v.stock(t, 1, 3), (stockRow{16 - 10 + 91, 10, 1, 0}); got != want {
				t.Errorf("stock 1/3 = %+v, want %+v", got, want)
			}
		})

		t.Run("rollback", func(t *testing.T) {
			before := dump(t, v.c)
			for _, items := range [][]int64{{1, 2, 100001}, {100001, 1}, {3, 100001, 5}} {
				n := len(items)
				supply, qty := make([]int64, n), make([]int64, n)
				for i := range items {
					supply[i], qty[i] = 1, 1
				}
				supply[0] = 2
				rolledBack, err := v.k.NewOrderTx(ctx, 1, 1, 2, items, supply, qty, t1)
				if err != nil || !rolledBack {
					t.Fatalf("items %v: NewOrderTx = %v, %v; want true, nil", items, rolledBack, err)
				}
			}
			sameDump(t, before, dump(t, v.c))
			// The connection is not left in a transaction: the next New-Order
			// gets the next id and is seen from another connection.
			if rolledBack, err := v.k.NewOrderTx(ctx, 1, 1, 2, []int64{7}, []int64{1}, []int64{1}, t1); err != nil || rolledBack {
				t.Fatalf("NewOrderTx after rollbacks = %v, %v", rolledBack, err)
			}
			other := enginetest.Connect(t, v.e)
			var next int64
			if err := other.QueryRow(ctx, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1", nil, &next); err != nil {
				t.Fatal(err)
			}
			if next != 6 {
				t.Errorf("d_next_o_id seen by another connection = %d, want 6", next)
			}
		})

		t.Run("bad-lists", func(t *testing.T) {
			before := dump(t, v.c)
			if _, err := v.k.NewOrderTx(ctx, 1, 1, 1, []int64{1, 2}, []int64{1}, []int64{1, 1}, t1); !errors.Is(err, ErrBadItems) {
				t.Errorf("err = %v, want ErrBadItems", err)
			}
			// The server checks too.
			var status int64
			err := v.k.NewOrder.QueryRow(ctx, []any{1, 1, 1, "1,2", "1", "1,1", t1}, &status)
			if err == nil {
				t.Errorf("server accepted lists of different lengths (status %d)", status)
			}
			// A customer that does not exist is an error, not a rollback.
			if rb, err := v.k.NewOrderTx(ctx, 1, 1, 99, []int64{1}, []int64{1}, []int64{1}, t1); err == nil {
				t.Errorf("NewOrderTx for a missing customer = %v, nil; want an error", rb)
			} else {
				t.Logf("missing customer: %v", err)
			}
			sameDump(t, before, dump(t, v.c))
		})
	})
}

func TestNewOrderBadItemsNeedsNoServer(t *testing.T) {
	var k Calls // no statements: the lists are checked before anything is sent
	for _, c := range []struct{ items, supply, qty []int64 }{
		{nil, nil, nil},
		{[]int64{1}, []int64{1, 1}, []int64{1}},
		{[]int64{1}, []int64{1}, nil},
	} {
		if _, err := k.NewOrderTx(context.Background(), 1, 1, 1, c.items, c.supply, c.qty, t1); !errors.Is(err, ErrBadItems) {
			t.Errorf("%v %v %v: err = %v, want ErrBadItems", c.items, c.supply, c.qty, err)
		}
	}
}

func TestList(t *testing.T) {
	var k Calls
	if got := k.list([]int64{12, 5077, 33}); got != "12,5077,33" {
		t.Errorf("list = %q", got)
	}
	if got := k.list([]int64{7}); got != "7" {
		t.Errorf("list = %q", got)
	}
}
