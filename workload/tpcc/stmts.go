package tpcc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// stmts are the client mode's prepared statements on one connection.
// Statements whose shape depends on the transaction (the IN lists of
// New-Order, the district's s_dist_xx column) are prepared on first use
// and kept.
type stmts struct {
	c         engine.Conn
	forUpdate string

	// New-Order
	noCustWh, noDist, noDistUpd, noOrder, noNewOrder engine.Stmt
	noItems                                          map[int]engine.Stmt    // by number of distinct items
	noStock                                          map[[2]int]engine.Stmt // by district and number of items
	noStockUpd                                       map[int]engine.Stmt    // by number of items
	noLines                                          map[int]engine.Stmt    // multi-row INSERT by line count
	// Payment
	payWhUpd, payWh, payDistUpd, payDist, payCustByName, payCust, payCustData, payCustUpd, payCustUpdBC, payHist engine.Stmt
	// Order-Status
	osCustByName, osCust, osOrder, osLines engine.Stmt
	// Delivery
	dlNewOrder, dlDelete, dlOrderUpd, dlLinesUpd, dlCustUpd engine.Stmt
	// Stock-Level
	slDist, slCount engine.Stmt

	// Scratch buffers reused between transactions.
	args     []any
	lineArgs []any
	ids      []int64
	items    map[int64]item
	stock    map[[2]int64]stockRow
}

type item struct {
	price      float64
	name, data string
}

// stockRow is a stock row as New-Order reads it, and what the order's
// lines add to it.
type stockRow struct {
	qty                 int64
	data, dist          string
	ytd, orders, remote int64 // increments
}

// stockUpdateSQL updates k stock rows of one warehouse in one statement:
// s_quantity is set, s_ytd, s_order_cnt and s_remote_cnt are increased,
// each by a CASE over the item ids.
func stockUpdateSQL(k int) string {
	var b strings.Builder
	b.WriteString("UPDATE stock SET ")
	for col, set := range []string{"s_quantity = CASE s_i_id", "s_ytd = s_ytd + CASE s_i_id", "s_order_cnt = s_order_cnt + CASE s_i_id", "s_remote_cnt = s_remote_cnt + CASE s_i_id"} {
		if col > 0 {
			b.WriteString(", ")
		}
		b.WriteString(set)
		for i := 0; i < k; i++ {
			// "? + 0" types the parameter as an integer where the
			// server infers parameter types (PostgreSQL).
			b.WriteString(" WHEN ? THEN ? + 0")
		}
		b.WriteString(" END")
	}
	b.WriteString(" WHERE s_w_id = ? AND s_i_id IN (" + placeholders(k) + ")")
	return b.String()
}

func prepareStmts(ctx context.Context, c engine.Conn) (*stmts, error) {
	s := &stmts{c: c, forUpdate: engine.ForUpdate(c.Dialect()),
		noItems: map[int]engine.Stmt{}, noStock: map[[2]int]engine.Stmt{}, noLines: map[int]engine.Stmt{}, noStockUpd: map[int]engine.Stmt{},
		items: map[int64]item{}, stock: map[[2]int64]stockRow{}}
	fu := s.forUpdate
	var err error
	p := func(sql string) engine.Stmt {
		if err != nil {
			return nil
		}
		var st engine.Stmt
		if st, err = c.Prepare(ctx, sql); err != nil {
			err = fmt.Errorf("tpcc: preparing %q: %w", sql, err)
		}
		return st
	}
	s.noCustWh = p("SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?")
	s.noDist = p("SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ?" + fu)
	s.noDistUpd = p("UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?")
	s.noOrder = p("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)")
	s.noNewOrder = p("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)")

	s.payWhUpd = p("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?")
	s.payWh = p("SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?")
	s.payDistUpd = p("UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?")
	s.payDist = p("SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?")
	s.payCustByName = p("SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first")
	s.payCust = p("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?" + fu)
	s.payCustData = p("SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.payCustUpd = p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.payCustUpdBC = p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.payHist = p("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")

	s.osCustByName = s.payCustByName
	s.osCust = p("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.osOrder = p("SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1")
	s.osLines = p("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")

	s.dlNewOrder = p("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1" + fu)
	s.dlDelete = p("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?")
	s.dlOrderUpd = p("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	s.dlLinesUpd = p("UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	s.dlCustUpd = p("UPDATE customer SET c_balance = c_balance + (SELECT COALESCE(SUM(ol_amount), 0) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?), " +
		"c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = (SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?)")

	s.slDist = p("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?")
	s.slCount = p("SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?")
	if err != nil {
		return nil, err
	}
	return s, nil
}

// prepared returns the statement cached under key, preparing sql on first
// use.
func prepared[K comparable](ctx context.Context, s *stmts, cache map[K]engine.Stmt, key K, sql func() string) (engine.Stmt, error) {
	if st, ok := cache[key]; ok {
		return st, nil
	}
	q := sql()
	st, err := s.c.Prepare(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("tpcc: preparing %q: %w", q, err)
	}
	cache[key] = st
	return st, nil
}

// placeholders is "?, ?, …" n times.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// newOrder is clause 2.4.2 with a few statements merged: the items in one
// SELECT … IN, the stock rows of each supply warehouse in one locking
// SELECT … IN, and the order lines in one multi-row INSERT.
func (s *stmts) newOrder(ctx context.Context, t *terminal, in *newOrderInput) error {
	q := t.q
	w, d := t.wID, in.dID
	var discount, wTax, dTax float64
	var cLast, credit string
	q.Reads++
	if err := s.noCustWh.QueryRow(ctx, []any{w, d, in.cID}, &discount, &cLast, &credit, &wTax); err != nil {
		return noRows(err, "customer", w, d, in.cID)
	}
	var oID int64
	q.Reads++
	if err := s.noDist.QueryRow(ctx, []any{w, d}, &oID, &dTax); err != nil {
		return noRows(err, "district", w, d)
	}
	q.Writes += 3
	if _, err := s.noDistUpd.Exec(ctx, oID+1, w, d); err != nil {
		return err
	}
	if _, err := s.noOrder.Exec(ctx, oID, d, w, in.cID, in.entry, int64(len(in.lines)), in.allLocal); err != nil {
		return err
	}
	if _, err := s.noNewOrder.Exec(ctx, oID, d, w); err != nil {
		return err
	}

	// Items: one SELECT for the distinct ids.
	s.ids = s.ids[:0]
	for _, l := range in.lines {
		if len(s.ids) == 0 || s.ids[len(s.ids)-1] != l.iID {
			if !containsID(s.ids, l.iID) {
				s.ids = append(s.ids, l.iID)
			}
		}
	}
	clear(s.items)
	n := len(s.ids)
	st, err := prepared(ctx, s, s.noItems, n, func() string {
		return "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (" + placeholders(n) + ")"
	})
	if err != nil {
		return err
	}
	s.args = s.args[:0]
	for _, id := range s.ids {
		s.args = append(s.args, id)
	}
	var id int64
	var it item
	q.Reads++
	if _, err := st.QueryEach(ctx, s.args, []any{&id, &it.price, &it.name, &it.data}, func() error {
		s.items[id] = it
		return nil
	}); err != nil {
		return err
	}
	if len(s.items) < n {
		// An unused item number: the intended rollback (clause 2.4.2.3),
		// which the caller's ROLLBACK carries out.
		return workload.ErrRollback
	}

	// Stock: one locking SELECT per supply warehouse (lines are sorted by
	// supply warehouse, then item).
	clear(s.stock)
	for i := 0; i < len(in.lines); {
		sw := in.lines[i].supplyWID
		s.args = append(s.args[:0], sw)
		j := i
		for ; j < len(in.lines) && in.lines[j].supplyWID == sw; j++ {
			if j == i || in.lines[j].iID != in.lines[j-1].iID {
				s.args = append(s.args, in.lines[j].iID)
			}
		}
		k := len(s.args) - 1
		st, err := prepared(ctx, s, s.noStock, [2]int{int(d), k}, func() string {
			return fmt.Sprintf("SELECT s_i_id, s_quantity, s_data, s_dist_%02d FROM stock WHERE s_w_id = ? AND s_i_id IN (%s)%s", d, placeholders(k), s.forUpdate)
		})
		if err != nil {
			return err
		}
		var row stockRow
		q.Reads++
		if _, err := st.QueryEach(ctx, s.args, []any{&id, &row.qty, &row.data, &row.dist}, func() error {
			s.stock[[2]int64{sw, id}] = row
			return nil
		}); err != nil {
			return err
		}
		i = j
	}

	// Order lines, with the stock quantities they leave (a repeated item
	// sees the quantity the earlier line left).
	lineArgs := s.lineArgs[:0]
	for i, l := range in.lines {
		key := [2]int64{l.supplyWID, l.iID}
		sr, ok := s.stock[key]
		if !ok {
			return errMissing("stock", l.supplyWID, l.iID)
		}
		qty := sr.qty - l.qty
		if qty < 10 {
			qty += 91
		}
		sr.qty = qty
		sr.ytd += l.qty
		sr.orders++
		if l.supplyWID != w {
			sr.remote++
		}
		s.stock[key] = sr
		amount := float64(l.qty) * s.items[l.iID].price
		lineArgs = append(lineArgs, oID, d, w, int64(i+1), l.iID, l.supplyWID, l.qty, roundCents(amount), sr.dist)
	}
	s.lineArgs = lineArgs

	// Stock updates: one UPDATE … CASE per supply warehouse.
	for i := 0; i < len(in.lines); {
		sw := in.lines[i].supplyWID
		s.ids = s.ids[:0]
		j := i
		for ; j < len(in.lines) && in.lines[j].supplyWID == sw; j++ {
			if j == i || in.lines[j].iID != in.lines[j-1].iID {
				s.ids = append(s.ids, in.lines[j].iID)
			}
		}
		k := len(s.ids)
		st, err := prepared(ctx, s, s.noStockUpd, k, func() string { return stockUpdateSQL(k) })
		if err != nil {
			return err
		}
		// Arguments: four CASE lists of (id, value), the warehouse, the ids.
		s.args = s.args[:0]
		for col := 0; col < 4; col++ {
			for _, id := range s.ids {
				sr := s.stock[[2]int64{sw, id}]
				v := [4]int64{sr.qty, sr.ytd, sr.orders, sr.remote}[col]
				s.args = append(s.args, id, v)
			}
		}
		s.args = append(s.args, sw)
		for _, id := range s.ids {
			s.args = append(s.args, id)
		}
		q.Writes++
		if _, err := st.Exec(ctx, s.args...); err != nil {
			return err
		}
		i = j
	}

	// All order lines in one INSERT.
	nl := len(in.lines)
	lines, err := prepared(ctx, s, s.noLines, nl, func() string {
		var b strings.Builder
		b.WriteString("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ")
		for i := 0; i < nl; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)")
		}
		return b.String()
	})
	if err != nil {
		return err
	}
	q.Writes++
	if _, err := lines.Exec(ctx, s.lineArgs...); err != nil {
		return err
	}
	return nil
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func roundCents(x float64) float64 {
	if x < 0 {
		return -roundCents(-x)
	}
	return float64(int64(x*100+0.5)) / 100
}

// customerID resolves a customer chosen by last name (clause 2.5.2.2).
func (s *stmts) customerID(ctx context.Context, t *terminal, st engine.Stmt, w, d int64, last string) (int64, error) {
	s.ids = s.ids[:0]
	var id int64
	t.q.Reads++
	if _, err := st.QueryEach(ctx, []any{w, d, last}, []any{&id}, func() error {
		s.ids = append(s.ids, id)
		return nil
	}); err != nil {
		return 0, err
	}
	c, ok := customerByName(s.ids)
	if !ok {
		return 0, errMissing("customer with last name", w, d, last)
	}
	return c, nil
}

func (s *stmts) payment(ctx context.Context, t *terminal, in *paymentInput) error {
	q := t.q
	w, d := t.wID, in.dID
	q.Writes++
	if _, err := s.payWhUpd.Exec(ctx, in.amount, w); err != nil {
		return err
	}
	var wName, dName, street1, street2, city, state, zip string
	q.Reads++
	if err := s.payWh.QueryRow(ctx, []any{w}, &wName, &street1, &street2, &city, &state, &zip); err != nil {
		return noRows(err, "warehouse", w)
	}
	q.Writes++
	if _, err := s.payDistUpd.Exec(ctx, in.amount, w, d); err != nil {
		return err
	}
	q.Reads++
	if err := s.payDist.QueryRow(ctx, []any{w, d}, &dName, &street1, &street2, &city, &state, &zip); err != nil {
		return noRows(err, "district", w, d)
	}
	cID := in.cID
	if in.cLast != "" {
		var err error
		if cID, err = s.customerID(ctx, t, s.payCustByName, in.cWID, in.cDID, in.cLast); err != nil {
			return err
		}
	}
	var first, middle, last, phone, credit string
	var since time.Time
	var creditLim, discount, balance float64
	q.Reads++
	if err := s.payCust.QueryRow(ctx, []any{in.cWID, in.cDID, cID}, &first, &middle, &last, &street1, &street2, &city, &state, &zip,
		&phone, &since, &credit, &creditLim, &discount, &balance); err != nil {
		return noRows(err, "customer", in.cWID, in.cDID, cID)
	}
	if credit == "BC" {
		var data string
		q.Reads++
		if err := s.payCustData.QueryRow(ctx, []any{in.cWID, in.cDID, cID}, &data); err != nil {
			return noRows(err, "customer", in.cWID, in.cDID, cID)
		}
		data = fmt.Sprintf("%d %d %d %d %d %.2f %s", cID, in.cDID, in.cWID, d, w, in.amount, data)
		if len(data) > 500 {
			data = data[:500]
		}
		q.Writes++
		if _, err := s.payCustUpdBC.Exec(ctx, in.amount, in.amount, data, in.cWID, in.cDID, cID); err != nil {
			return err
		}
	} else {
		q.Writes++
		if _, err := s.payCustUpd.Exec(ctx, in.amount, in.amount, in.cWID, in.cDID, cID); err != nil {
			return err
		}
	}
	q.Writes++
	_, err := s.payHist.Exec(ctx, cID, in.cDID, in.cWID, d, w, in.date, in.amount, wName+"    "+dName)
	return err
}

func (s *stmts) orderStatus(ctx context.Context, t *terminal, d, cID int64, cLast string) error {
	q := t.q
	w := t.wID
	if cLast != "" {
		var err error
		if cID, err = s.customerID(ctx, t, s.osCustByName, w, d, cLast); err != nil {
			return err
		}
	}
	var balance float64
	var first, middle, last string
	q.Reads++
	if err := s.osCust.QueryRow(ctx, []any{w, d, cID}, &balance, &first, &middle, &last); err != nil {
		return noRows(err, "customer", w, d, cID)
	}
	var oID int64
	var entry time.Time
	var carrier sql.NullInt64
	q.Reads++
	if err := s.osOrder.QueryRow(ctx, []any{w, d, cID}, &oID, &entry, &carrier); err != nil {
		return noRows(err, "order of customer", w, d, cID)
	}
	q.Reads++
	_, err := s.osLines.Query(ctx, w, d, oID)
	return err
}

func (s *stmts) delivery(ctx context.Context, t *terminal, carrier int64, date time.Time) error {
	q := t.q
	w := t.wID
	for d := int64(1); d <= 10; d++ {
		var oID int64
		q.Reads++
		err := s.dlNewOrder.QueryRow(ctx, []any{w, d}, &oID)
		if errors.Is(err, engine.ErrNoRows) {
			continue // no undelivered order in this district (clause 2.7.4.2)
		}
		if err != nil {
			return err
		}
		q.Writes++
		if n, err := s.dlDelete.Exec(ctx, w, d, oID); err != nil {
			return err
		} else if n == 0 {
			continue // delivered by a concurrent Delivery
		}
		q.Writes += 3
		if _, err := s.dlOrderUpd.Exec(ctx, carrier, w, d, oID); err != nil {
			return err
		}
		if _, err := s.dlLinesUpd.Exec(ctx, date, w, d, oID); err != nil {
			return err
		}
		// The customer is the order's, the amount the sum of its lines:
		// both read by subqueries of the UPDATE.
		if n, err := s.dlCustUpd.Exec(ctx, w, d, oID, w, d, w, d, oID); err != nil {
			return err
		} else if n != 1 {
			return errMissing("customer of order", w, d, oID)
		}
	}
	return nil
}

func (s *stmts) stockLevel(ctx context.Context, t *terminal, threshold int64) error {
	w, d := t.wID, t.dID
	var next int64
	t.q.Reads++
	if err := s.slDist.QueryRow(ctx, []any{w, d}, &next); err != nil {
		return noRows(err, "district", w, d)
	}
	var low int64
	t.q.Reads++
	return s.slCount.QueryRow(ctx, []any{w, d, next, next - 20, w, threshold}, &low)
}
