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
	c         engine.SQLConn
	pipeline  bool // send batches in one round trip where the engine can
	forUpdate string

	// New-Order
	noCustWh, noDist, noDistUpd, noOrder, noNewOrder engine.Stmt
	noItems                                          map[int]engine.Stmt    // by number of distinct items
	noStock                                          map[[2]int]engine.Stmt // by district and number of items
	noStockUpd                                       map[int]engine.Stmt    // by number of items
	noLines                                          map[int]engine.Stmt    // multi-row INSERT by line count
	// Payment
	payWhUpd, payWh, payDistUpd, payDist, payCustByName, payCust, payCustUpd, payCustUpdBC, payHist engine.Stmt
	// Order-Status
	osCustByName, osCust, osOrder, osLines engine.Stmt
	// Delivery
	dlNewOrder, dlDelete, dlOrderUpd, dlLinesUpd, dlCustUpd engine.Stmt
	// Stock-Level
	slCount engine.Stmt

	// b is the batch every transaction sends its statements in.
	b engine.Batch
	// Scratch buffers reused between transactions.
	args     []any
	lineArgs []any
	ids      []int64
	items    map[int64]item
	stock    map[[2]int64]stockRow
	// Row destinations and the callbacks that file them, made once: a
	// method value built per call would allocate.
	id                       int64
	item                     item
	stockKey                 [2]int64
	stockRow                 stockRow
	addItem, addStock, addID func() error
	dlOrders                 [11]int64 // Delivery: the order found per district
	dlFound                  [11]func() error
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

func prepareStmts(ctx context.Context, c engine.SQLConn, pipeline bool) (*stmts, error) {
	s := &stmts{c: c, pipeline: pipeline, forUpdate: c.Dialect().Capabilities().LockingRead,
		noItems: map[int]engine.Stmt{}, noStock: map[[2]int]engine.Stmt{}, noLines: map[int]engine.Stmt{}, noStockUpd: map[int]engine.Stmt{},
		items: map[int64]item{}, stock: map[[2]int64]stockRow{}}
	s.addItem, s.addStock, s.addID = s.addItemRow, s.addStockRow, s.addIDRow
	for d := range s.dlFound {
		s.dlFound[d] = func() error {
			s.dlOrders[d] = s.id
			return nil
		}
	}
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
	s.payCust = p("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, " +
		"CASE WHEN c_credit = 'BC' THEN c_data ELSE '' END FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?" + fu)
	s.payCustUpd = p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.payCustUpdBC = p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.payHist = p("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")

	s.osCustByName = s.payCustByName
	s.osCust = p("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.osOrder = p("SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1")
	s.osLines = p("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? " +
		"AND ol_o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?)")

	s.dlNewOrder = p("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1" + fu)
	s.dlDelete = p("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?")
	s.dlOrderUpd = p("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	s.dlLinesUpd = p("UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	s.dlCustUpd = p("UPDATE customer SET c_balance = c_balance + (SELECT COALESCE(SUM(ol_amount), 0) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?), " +
		"c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = (SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?)")

	s.slCount = p("SELECT COUNT(DISTINCT s_i_id) FROM district, order_line, stock WHERE d_w_id = ? AND d_id = ? " +
		"AND ol_w_id = d_w_id AND ol_d_id = d_id AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20 " +
		"AND s_w_id = d_w_id AND s_i_id = ol_i_id AND s_quantity < ?")
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

// newOrder is clause 2.4.2 in two round trips: the reads and locks (the
// customer and warehouse, the district, the items in one SELECT … IN, the
// stock rows of each supply warehouse in one locking SELECT … IN) go in one
// batch with BEGIN; the writes (district, order, new order, one UPDATE …
// CASE per supply warehouse, the order lines in one multi-row INSERT) in a
// second with COMMIT. The caller rolls back on error.
func (s *stmts) newOrder(ctx context.Context, t *terminal, in *newOrderInput) error {
	q := t.q
	w, d := t.wID, in.dID
	b := &s.b
	b.Reset()
	q.Other++
	b.Begin()
	var discount, wTax, dTax float64
	var cLast, credit string
	var oID int64
	q.Reads += 2
	iCust := b.QueryRow(s.noCustWh, []any{w, d, in.cID}, &discount, &cLast, &credit, &wTax)
	iDist := b.QueryRow(s.noDist, []any{w, d}, &oID, &dTax)

	// Items: one SELECT for the distinct ids.
	s.ids = s.ids[:0]
	for _, l := range in.lines {
		if !containsID(s.ids, l.iID) {
			s.ids = append(s.ids, l.iID)
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
	q.Reads++
	b.QueryEach(st, s.args, []any{&s.id, &s.item.price, &s.item.name, &s.item.data}, s.addItem)

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
			return fmt.Sprintf("SELECT s_w_id, s_i_id, s_quantity, s_data, s_dist_%02d FROM stock WHERE s_w_id = ? AND s_i_id IN (%s)%s", d, placeholders(k), s.forUpdate)
		})
		if err != nil {
			return err
		}
		q.Reads++
		b.QueryEach(st, s.args, []any{&s.stockKey[0], &s.stockKey[1], &s.stockRow.qty, &s.stockRow.data, &s.stockRow.dist}, s.addStock)
		i = j
	}
	if err := s.send(ctx); err != nil {
		switch failedAt(err) {
		case iCust:
			return noRows(err, "customer", w, d, in.cID)
		case iDist:
			return noRows(err, "district", w, d)
		}
		return err
	}
	if len(s.items) < n {
		// An unused item number: the intended rollback (clause 2.4.2.3),
		// which the caller's ROLLBACK carries out.
		return workload.ErrRollback
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

	b.Reset()
	q.Writes += 3
	b.Exec(s.noDistUpd, oID+1, w, d)
	b.Exec(s.noOrder, oID, d, w, in.cID, in.entry, int64(len(in.lines)), in.allLocal)
	b.Exec(s.noNewOrder, oID, d, w)

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
		b.Exec(st, s.args...)
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
	b.Exec(lines, s.lineArgs...)
	q.Other++
	b.Commit()
	return s.send(ctx)
}

// addItem and addStock are New-Order's row callbacks, made once.
func (s *stmts) addItemRow() error {
	s.items[s.id] = s.item
	return nil
}

func (s *stmts) addStockRow() error {
	s.stock[s.stockKey] = s.stockRow
	return nil
}

// send sends s.b: pipelined, or one statement at a time.
func (s *stmts) send(ctx context.Context) error {
	if s.pipeline {
		return s.b.Send(ctx, s.c)
	}
	return engine.RunBatch(ctx, s.c, &s.b)
}

// failedAt is the index of the batch statement err comes from, or -1.
func failedAt(err error) int {
	var be *engine.BatchError
	if errors.As(err, &be) {
		return be.Index
	}
	return -1
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

// queueByName queues the SELECT of the customers with a last name
// (clause 2.5.2.2); pickByName then resolves the one the transaction uses.
func (s *stmts) queueByName(t *terminal, st engine.Stmt, w, d int64, last string) {
	s.ids = s.ids[:0]
	t.q.Reads++
	s.b.QueryEach(st, []any{w, d, last}, []any{&s.id}, s.addID)
}

func (s *stmts) addIDRow() error {
	s.ids = append(s.ids, s.id)
	return nil
}

func (s *stmts) pickByName(w, d int64, last string) (int64, error) {
	c, ok := customerByName(s.ids)
	if !ok {
		return 0, errMissing("customer with last name", w, d, last)
	}
	return c, nil
}

// payment is clause 2.5.2: the warehouse, district and customer reads and
// updates in two round trips, three when the customer is chosen by last
// name. The customer's row is read with its c_data when the credit is bad
// ("BC"), the only case that needs it.
func (s *stmts) payment(ctx context.Context, t *terminal, in *paymentInput) error {
	q := t.q
	w, d := t.wID, in.dID
	b := &s.b
	b.Reset()
	q.Other++
	b.Begin()
	var wName, dName, street1, street2, city, state, zip string
	q.Writes += 2
	q.Reads += 2
	b.Exec(s.payWhUpd, in.amount, w)
	iWh := b.QueryRow(s.payWh, []any{w}, &wName, &street1, &street2, &city, &state, &zip)
	b.Exec(s.payDistUpd, in.amount, w, d)
	iDist := b.QueryRow(s.payDist, []any{w, d}, &dName, &street1, &street2, &city, &state, &zip)
	cID := in.cID
	var first, middle, last, phone, credit, data string
	var since time.Time
	var creditLim, discount, balance float64
	queueCust := func() int {
		q.Reads++
		return b.QueryRow(s.payCust, []any{in.cWID, in.cDID, cID}, &first, &middle, &last, &street1, &street2, &city, &state, &zip,
			&phone, &since, &credit, &creditLim, &discount, &balance, &data)
	}
	iCust := -1
	if in.cLast != "" {
		s.queueByName(t, s.payCustByName, in.cWID, in.cDID, in.cLast)
	} else {
		iCust = queueCust()
	}
	err := s.send(ctx)
	if err == nil && in.cLast != "" {
		if cID, err = s.pickByName(in.cWID, in.cDID, in.cLast); err != nil {
			return err
		}
		b.Reset()
		iCust = queueCust()
		err = s.send(ctx)
	}
	if err != nil {
		switch failedAt(err) {
		case iWh:
			return noRows(err, "warehouse", w)
		case iDist:
			return noRows(err, "district", w, d)
		case iCust:
			return noRows(err, "customer", in.cWID, in.cDID, cID)
		}
		return err
	}

	b.Reset()
	q.Writes += 2
	if credit == "BC" {
		data = fmt.Sprintf("%d %d %d %d %d %.2f %s", cID, in.cDID, in.cWID, d, w, in.amount, data)
		if len(data) > 500 {
			data = data[:500]
		}
		b.Exec(s.payCustUpdBC, in.amount, in.amount, data, in.cWID, in.cDID, cID)
	} else {
		b.Exec(s.payCustUpd, in.amount, in.amount, in.cWID, in.cDID, cID)
	}
	b.Exec(s.payHist, cID, in.cDID, in.cWID, d, w, in.date, in.amount, wName+"    "+dName)
	q.Other++
	b.Commit()
	return s.send(ctx)
}

// orderStatus is clause 2.6.2 in one round trip (two by last name): the
// customer, the latest order, and that order's lines, which a subquery
// finds.
func (s *stmts) orderStatus(ctx context.Context, t *terminal, d, cID int64, cLast string) error {
	q := t.q
	w := t.wID
	b := &s.b
	b.Reset()
	q.Other++
	b.Begin()
	if cLast != "" {
		s.queueByName(t, s.osCustByName, w, d, cLast)
		if err := s.send(ctx); err != nil {
			return err
		}
		var err error
		if cID, err = s.pickByName(w, d, cLast); err != nil {
			return err
		}
		b.Reset()
	}
	var balance float64
	var first, middle, last string
	var oID int64
	var entry time.Time
	var carrier sql.NullInt64
	q.Reads += 3
	iCust := b.QueryRow(s.osCust, []any{w, d, cID}, &balance, &first, &middle, &last)
	iOrder := b.QueryRow(s.osOrder, []any{w, d, cID}, &oID, &entry, &carrier)
	b.Query(s.osLines, w, d, w, d, cID)
	q.Other++
	b.Commit()
	err := s.send(ctx)
	switch failedAt(err) {
	case iCust:
		return noRows(err, "customer", w, d, cID)
	case iOrder:
		return noRows(err, "order of customer", w, d, cID)
	}
	return err
}

// delivery is clause 2.7.4 in two round trips: the oldest undelivered
// order of each of the ten districts, locked; then, for each found, the
// new order's deletion, the order's carrier, the lines' delivery date and
// the customer's balance (its customer and amount read by subqueries of
// the UPDATE), and COMMIT.
func (s *stmts) delivery(ctx context.Context, t *terminal, carrier int64, date time.Time) error {
	q := t.q
	w := t.wID
	b := &s.b
	b.Reset()
	q.Other++
	b.Begin()
	s.dlOrders = [11]int64{}
	for d := int64(1); d <= 10; d++ {
		q.Reads++
		b.QueryEach(s.dlNewOrder, []any{w, d}, []any{&s.id}, s.dlFound[d])
	}
	if err := s.send(ctx); err != nil {
		return err
	}
	b.Reset()
	var deleted, credited [11]int
	for d := int64(1); d <= 10; d++ {
		oID := s.dlOrders[d]
		if oID == 0 {
			continue // no undelivered order in this district (clause 2.7.4.2)
		}
		q.Writes += 4
		deleted[d] = b.Exec(s.dlDelete, w, d, oID)
		b.Exec(s.dlOrderUpd, carrier, w, d, oID)
		b.Exec(s.dlLinesUpd, date, w, d, oID)
		credited[d] = b.Exec(s.dlCustUpd, w, d, oID, w, d, w, d, oID)
	}
	q.Other++
	b.Commit()
	if err := s.send(ctx); err != nil {
		return err
	}
	for d := int64(1); d <= 10; d++ {
		if s.dlOrders[d] == 0 {
			continue
		}
		// The new order was locked in the first round trip: nothing else
		// can have delivered it.
		if b.RowsAffected(deleted[d]) != 1 {
			return fmt.Errorf("tpcc: delivery: new order (%d, %d, %d) was locked but is gone", w, d, s.dlOrders[d])
		}
		if b.RowsAffected(credited[d]) != 1 {
			return errMissing("customer of order", w, d, s.dlOrders[d])
		}
	}
	return nil
}

// stockLevel is clause 2.8.2 in one statement: the district's next order
// number joined to the lines of its last 20 orders and their stock.
func (s *stmts) stockLevel(ctx context.Context, t *terminal, threshold int64) error {
	w, d := t.wID, t.dID
	b := &s.b
	b.Reset()
	var low int64
	t.q.Other += 2
	t.q.Reads++
	b.Begin()
	b.QueryRow(s.slCount, []any{w, d, threshold}, &low)
	b.Commit()
	return s.send(ctx)
}
