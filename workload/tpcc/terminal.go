package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpcc/internal/gen"
	"github.com/dbarena/dbarena/workload/tpcc/internal/procs"
)

// deck is the card deck of clause 5.2.4.2: each terminal draws its next
// transaction type from a shuffled deck of 23 cards (10 New-Order,
// 10 Payment, 1 each of Order-Status, Delivery and Stock-Level), which
// meets the minimum mix of 43% Payment and 4% of each of the others.
var deck = [...]uint8{
	opNewOrder, opNewOrder, opNewOrder, opNewOrder, opNewOrder,
	opNewOrder, opNewOrder, opNewOrder, opNewOrder, opNewOrder,
	opPayment, opPayment, opPayment, opPayment, opPayment,
	opPayment, opPayment, opPayment, opPayment, opPayment,
	opOrderStatus, opDelivery, opStockLevel,
}

// Keying and mean think times per transaction type (clause 5.2.5.7).
var (
	keying    = [numOps]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	meanThink = [numOps]time.Duration{12 * time.Second, 12 * time.Second, 10 * time.Second, 5 * time.Second, 5 * time.Second}
)

// unusedItem is an item id outside the population: New-Order's
// intended rollbacks ask for it (clause 2.4.1.4).
const unusedItem = gen.Items + 1

// terminal is one emulated terminal on its own connection.
type terminal struct {
	run  *run
	c    engine.SQLConn
	q    *workload.Queries
	r    *rand.Rand
	cRun gen.Constants

	wID, dID   int64 // home warehouse and district
	warehouses int64

	cards   [len(deck)]uint8
	card    int
	next    int  // the op drawn by Pause, run by the next Next
	drawn   bool // next is valid
	last    int  // the previous op, for its think time
	started bool

	st    *stmts       // client mode
	calls *procs.Calls // procedure mode

	// Input buffers reused between transactions.
	no                  newOrderInput
	pay                 paymentInput
	items, supply, qtys []int64 // procedure mode's New-Order lists
}

func newTerminal(ctx context.Context, r *run, c engine.SQLConn, env workload.WorkerEnv) (*terminal, error) {
	nw := r.opts.warehouses
	t := &terminal{
		run: r, c: c, q: env.Queries,
		r:          rand.New(rand.NewPCG(env.Seed, uint64(env.ID))),
		cRun:       r.cRun,
		wID:        int64(env.ID%nw) + 1,
		dID:        int64((env.ID/nw)%gen.DistrictsPerWarehouse) + 1,
		warehouses: int64(nw),
		card:       len(deck),
	}
	var err error
	if r.opts.mode == ModeProcedure {
		t.calls, err = procs.Prepare(ctx, c)
	} else {
		t.st, err = prepareStmts(ctx, c, r.opts.pipeline)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// draw takes the next card, reshuffling the deck when it is used up.
func (t *terminal) draw() int {
	if t.card == len(t.cards) {
		t.cards = deck
		t.r.Shuffle(len(t.cards), func(i, j int) { t.cards[i], t.cards[j] = t.cards[j], t.cards[i] })
		t.card = 0
	}
	op := int(t.cards[t.card])
	t.card++
	return op
}

// Pause is the wait before the next transaction under --wait: the think
// time of the previous one (negative exponential with the type's mean,
// truncated at ten times the mean, clause 5.2.5.4) and the keying time
// of the next one. Without --wait terminals run back to back.
func (t *terminal) Pause() time.Duration {
	if !t.run.opts.wait {
		return 0
	}
	t.next, t.drawn = t.draw(), true
	d := keying[t.next]
	if t.started {
		mean := meanThink[t.last]
		think := time.Duration(-math.Log(1-t.r.Float64()) * float64(mean))
		d += min(think, 10*mean)
	}
	return d
}

// Next runs one transaction.
func (t *terminal) Next(ctx context.Context) (int, error) {
	op := t.next
	if !t.drawn {
		op = t.draw()
	}
	t.drawn, t.last, t.started = false, op, true
	var err error
	switch op {
	case opNewOrder:
		err = t.newOrder(ctx)
	case opPayment:
		err = t.payment(ctx)
	case opOrderStatus:
		err = t.orderStatus(ctx)
	case opDelivery:
		err = t.delivery(ctx)
	case opStockLevel:
		err = t.stockLevel(ctx)
	}
	return op, err
}

// otherWarehouse is a uniformly chosen warehouse other than the home one
// (the home one when there is no other).
func (t *terminal) otherWarehouse() int64 {
	if t.warehouses == 1 {
		return t.wID
	}
	w := gen.Uniform(t.r, 1, t.warehouses-1)
	if w >= t.wID {
		w++
	}
	return w
}

// rollback ends a failed transaction (client mode sends BEGIN and COMMIT
// in its batches); err is what the caller reports.
func (t *terminal) rollback(ctx context.Context, err error) error {
	t.q.Other++
	if rerr := t.c.Rollback(context.WithoutCancel(ctx)); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// newOrderInput is one New-Order's input data (clause 2.4.1).
type newOrderInput struct {
	dID, cID int64
	lines    []orderLine
	allLocal int64
	entry    time.Time
	rollback bool
}

type orderLine struct {
	iID, supplyWID, qty int64
}

func (t *terminal) newOrderInput() *newOrderInput {
	in := &t.no
	in.dID = gen.Uniform(t.r, 1, gen.DistrictsPerWarehouse)
	in.cID = gen.CustomerID(t.r, t.cRun)
	n := int(gen.Uniform(t.r, 5, 15))
	in.rollback = gen.Uniform(t.r, 1, 100) == 1
	in.allLocal = 1
	in.lines = in.lines[:0]
	for i := 0; i < n; i++ {
		l := orderLine{iID: gen.ItemID(t.r, t.cRun), supplyWID: t.wID, qty: gen.Uniform(t.r, 1, 10)}
		if i == n-1 && in.rollback {
			l.iID = unusedItem
		}
		if t.warehouses > 1 && gen.Uniform(t.r, 1, 100) == 1 {
			l.supplyWID = t.otherWarehouse()
			in.allLocal = 0
		}
		in.lines = append(in.lines, l)
	}
	// Lines in (supply warehouse, item) order: every transaction locks
	// stock rows in the same order, so New-Orders never deadlock on them.
	// The unused item stays last, where the specification places it.
	slices.SortFunc(in.lines, func(a, b orderLine) int {
		if (a.iID == unusedItem) != (b.iID == unusedItem) {
			if a.iID == unusedItem {
				return 1
			}
			return -1
		}
		if a.supplyWID != b.supplyWID {
			return int(a.supplyWID - b.supplyWID)
		}
		return int(a.iID - b.iID)
	})
	in.entry = time.Now()
	return in
}

func (t *terminal) newOrder(ctx context.Context) error {
	return t.newOrderWith(ctx, t.newOrderInput())
}

func (t *terminal) newOrderWith(ctx context.Context, in *newOrderInput) error {
	if t.calls != nil {
		t.items, t.supply, t.qtys = t.items[:0], t.supply[:0], t.qtys[:0]
		for _, l := range in.lines {
			t.items = append(t.items, l.iID)
			t.supply = append(t.supply, l.supplyWID)
			t.qtys = append(t.qtys, l.qty)
		}
		t.q.Other++
		rolledBack, err := t.calls.NewOrderTx(ctx, t.wID, in.dID, in.cID, t.items, t.supply, t.qtys, in.entry)
		if err == nil && rolledBack {
			return workload.ErrRollback
		}
		return err
	}
	if err := t.st.newOrder(ctx, t, in); err != nil {
		return t.rollback(ctx, err)
	}
	return nil
}

// customerByName is the customer of clause 2.5.2.2 for a last name: the
// one at position ceil(n/2) of those with that name ordered by first name.
func customerByName(ids []int64) (int64, bool) {
	if len(ids) == 0 {
		return 0, false
	}
	return ids[(len(ids)+1)/2-1], true
}

// paymentInput is one Payment's input data (clause 2.5.1).
type paymentInput struct {
	dID, cWID, cDID, cID int64
	cLast                string // set when the customer is chosen by last name
	amount               float64
	date                 time.Time
}

func (t *terminal) payment(ctx context.Context) error {
	t.pay = paymentInput{dID: gen.Uniform(t.r, 1, gen.DistrictsPerWarehouse)}
	in := &t.pay
	if t.warehouses == 1 || gen.Uniform(t.r, 1, 100) <= 85 {
		in.cWID, in.cDID = t.wID, in.dID
	} else {
		in.cWID, in.cDID = t.otherWarehouse(), gen.Uniform(t.r, 1, gen.DistrictsPerWarehouse)
	}
	if gen.Uniform(t.r, 1, 100) <= 60 {
		in.cLast = gen.RandomLastName(t.r, t.cRun)
	} else {
		in.cID = gen.CustomerID(t.r, t.cRun)
	}
	in.amount = float64(gen.Uniform(t.r, 100, 500000)) / 100
	in.date = time.Now()
	return t.paymentWith(ctx, in)
}

func (t *terminal) paymentWith(ctx context.Context, in *paymentInput) error {
	if t.calls != nil {
		t.q.Other++
		return t.calls.PaymentTx(ctx, t.wID, in.dID, in.cWID, in.cDID, in.cID, in.cLast, in.amount, in.date)
	}
	if err := t.st.payment(ctx, t, in); err != nil {
		return t.rollback(ctx, err)
	}
	return nil
}

func (t *terminal) orderStatus(ctx context.Context) error {
	dID := gen.Uniform(t.r, 1, gen.DistrictsPerWarehouse)
	var cID int64
	var cLast string
	if gen.Uniform(t.r, 1, 100) <= 60 {
		cLast = gen.RandomLastName(t.r, t.cRun)
	} else {
		cID = gen.CustomerID(t.r, t.cRun)
	}
	return t.orderStatusWith(ctx, dID, cID, cLast)
}

func (t *terminal) orderStatusWith(ctx context.Context, dID, cID int64, cLast string) error {
	if t.calls != nil {
		t.q.Other++
		return t.calls.OrderStatusTx(ctx, t.wID, dID, cID, cLast)
	}
	if err := t.st.orderStatus(ctx, t, dID, cID, cLast); err != nil {
		return t.rollback(ctx, err)
	}
	return nil
}

// delivery runs in line, as HammerDB does: the ten districts of the home
// warehouse in one transaction (clause 2.7.4).
func (t *terminal) delivery(ctx context.Context) error {
	return t.deliveryWith(ctx, gen.Uniform(t.r, 1, 10), time.Now())
}

func (t *terminal) deliveryWith(ctx context.Context, carrier int64, date time.Time) error {
	if t.calls != nil {
		t.q.Other++
		return t.calls.DeliveryTx(ctx, t.wID, carrier, date)
	}
	if err := t.st.delivery(ctx, t, carrier, date); err != nil {
		return t.rollback(ctx, err)
	}
	return nil
}

// stockLevel uses the terminal's own district (clause 2.8.1.1).
func (t *terminal) stockLevel(ctx context.Context) error {
	return t.stockLevelWith(ctx, gen.Uniform(t.r, 10, 20))
}

func (t *terminal) stockLevelWith(ctx context.Context, threshold int64) error {
	if t.calls != nil {
		t.q.Other++
		_, err := t.calls.StockLevelTx(ctx, t.wID, t.dID, threshold)
		return err
	}
	if err := t.st.stockLevel(ctx, t, threshold); err != nil {
		return t.rollback(ctx, err)
	}
	return nil
}

// errMissing reports a row the specification guarantees but the database
// does not have: the data is not a consistent TPC-C population.
func errMissing(what string, key ...any) error {
	parts := make([]string, len(key))
	for i, k := range key {
		parts[i] = fmt.Sprint(k)
	}
	return fmt.Errorf("tpcc: no %s (%s): is the database prepared with these options?", what, strings.Join(parts, ", "))
}

// noRows turns engine.ErrNoRows into errMissing.
func noRows(err error, what string, key ...any) error {
	if errors.Is(err, engine.ErrNoRows) {
		return errMissing(what, key...)
	}
	return err
}
