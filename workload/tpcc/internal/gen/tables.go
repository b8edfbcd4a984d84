package gen

import (
	"math/rand/v2"

	"github.com/dbarena/dbarena/engine"
)

// The row sources below follow clause 4.3.3.1 column by column, in the
// column order of schema.Tables. Each source is seeded from (seed, table,
// w) or, for the tables organised by district, reseeded at the start of
// each district from (seed, table, w, d). Every source fills one []any
// that Values returns each time, builds all the string columns of a row
// in one buffer converted to one string (the columns are substrings of
// it), and boxes constant values once.
//
// A source is not safe for concurrent use; distinct sources are
// independent and may run in different goroutines.

// Values boxed once.
var (
	anyZero       any = int64(0)
	anyOne        any = int64(1)
	anyZeroAmount any = 0.0
	anyWYTD       any = 300000.0
	anyDYTD       any = 30000.0
	anyDNextOID   any = int64(OrdersPerDistrict + 1)
	anyOE         any = "OE"
	anyGC         any = "GC"
	anyBC         any = "BC"
	anyCreditLim  any = 50000.0
	anyBalance    any = -10.0
	anyYTDPayment any = 10.0
	anyHAmount    any = 10.0
	anyQuantity   any = int64(5)
)

// base holds a source's row and implements Values and Err: the
// generators cannot fail.
type base struct{ row []any }

func (s *base) Values() ([]any, error) { return s.row, nil }
func (s *base) Err() error             { return nil }

// original is the marker clause 4.3.3.1 puts into 10% of i_data and
// s_data.
const original = "ORIGINAL"

// appendData appends i_data or s_data: a random a-string [26 .. 50];
// for 10% of the rows, selected at random, "ORIGINAL" overwrites 8
// consecutive characters at a random position.
func appendData(r *rand.Rand, b []byte) []byte {
	start := len(b)
	b = appendAString(r, b, 26, 50)
	if uniformN(r, 10) == 0 {
		p := start + int(Uniform(r, 0, int64(len(b)-start-len(original))))
		copy(b[p:], original)
	}
	return b
}

// address is the end offsets, in a row buffer, of the street_1,
// street_2, city, state and zip columns written by appendAddress.
type address [5]int

// appendAddress appends street_1, street_2 and city (random a-strings
// [10 .. 20]), state (2 random letters) and zip (clause 4.3.2.7).
func appendAddress(r *rand.Rand, b []byte) ([]byte, address) {
	var a address
	b = appendAString(r, b, 10, 20)
	a[0] = len(b)
	b = appendAString(r, b, 10, 20)
	a[1] = len(b)
	b = appendAString(r, b, 10, 20)
	a[2] = len(b)
	b = appendChars(r, b, letterSet, 2)
	a[3] = len(b)
	b = appendZip(r, b)
	a[4] = len(b)
	return b, a
}

// setAddress stores the five address columns into row[at:at+5]; from is
// where street_1 starts in str.
func setAddress(row []any, at int, str string, from int, a address) {
	for k, end := range a {
		row[at+k] = str[from:end]
		from = end
	}
}

// tax is w_tax or d_tax: random within [0.0000 .. 0.2000].
func tax(r *rand.Rand) float64 { return float64(Uniform(r, 0, 2000)) / 10000 }

// Items returns the 100,000 rows of item:
// (i_id, i_im_id, i_name, i_price, i_data).
func (c Config) Items() engine.RowSource {
	s := &itemSource{r: newStream(c.Seed, tagItem, 0, 0), buf: make([]byte, 0, 128)}
	s.row = make([]any, 5)
	return s
}

type itemSource struct {
	base
	r   *rand.Rand
	id  int64
	buf []byte
}

func (s *itemSource) Next() bool {
	if s.id == Items {
		return false
	}
	s.id++
	r := s.r
	imID := Uniform(r, 1, 10000)
	b := appendAString(r, s.buf[:0], 14, 24)
	name := len(b)
	price := float64(Uniform(r, 100, 10000)) / 100
	b = appendData(r, b)
	str := string(b)
	s.buf = b
	row := s.row
	row[0] = s.id
	row[1] = imID
	row[2] = str[:name]
	row[3] = price
	row[4] = str[name:]
	return true
}

// Warehouse returns the one row of warehouse w: (w_id, w_name,
// w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd).
func (c Config) Warehouse(w int) engine.RowSource {
	if e := c.checkW(w); e != nil {
		return e
	}
	return &warehouseSource{seed: c.Seed, w: w}
}

type warehouseSource struct {
	base
	seed uint64
	w    int
	done bool
}

func (s *warehouseSource) Next() bool {
	if s.done {
		return false
	}
	s.done = true
	r := newStream(s.seed, tagWarehouse, s.w, 0)
	b := appendAString(r, nil, 6, 10)
	name := len(b)
	b, a := appendAddress(r, b)
	str := string(b)
	s.row = make([]any, 9)
	s.row[0] = int64(s.w)
	s.row[1] = str[:name]
	setAddress(s.row, 2, str, name, a)
	s.row[7] = tax(r)
	s.row[8] = anyWYTD
	return true
}

// Stock returns the 100,000 rows of stock of warehouse w: (s_i_id,
// s_w_id, s_quantity, s_dist_01 … s_dist_10, s_ytd, s_order_cnt,
// s_remote_cnt, s_data).
func (c Config) Stock(w int) engine.RowSource {
	if e := c.checkW(w); e != nil {
		return e
	}
	s := &stockSource{r: newStream(c.Seed, tagStock, w, 0), w: int64(w), buf: make([]byte, 0, 512)}
	s.row = make([]any, 17)
	return s
}

type stockSource struct {
	base
	r   *rand.Rand
	w   int64
	id  int64
	buf []byte
}

// distInfoLen is the length of s_dist_xx and ol_dist_info.
const distInfoLen = 24

func (s *stockSource) Next() bool {
	if s.id == StockPerWarehouse {
		return false
	}
	s.id++
	r := s.r
	qty := Uniform(r, 10, 100)
	b := appendChars(r, s.buf[:0], alnumSet, DistrictsPerWarehouse*distInfoLen)
	b = appendData(r, b)
	str := string(b)
	s.buf = b
	row := s.row
	row[0] = s.id
	row[1] = s.w
	row[2] = qty
	for k := 0; k < DistrictsPerWarehouse; k++ {
		row[3+k] = str[k*distInfoLen : (k+1)*distInfoLen]
	}
	row[13] = anyZero
	row[14] = anyZero
	row[15] = anyZero
	row[16] = str[DistrictsPerWarehouse*distInfoLen:]
	return true
}

// Districts returns the 10 rows of district of warehouse w: (d_id,
// d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax,
// d_ytd, d_next_o_id).
func (c Config) Districts(w int) engine.RowSource {
	if e := c.checkW(w); e != nil {
		return e
	}
	s := &districtSource{r: newStream(c.Seed, tagDistrict, w, 0), w: int64(w)}
	s.row = make([]any, 11)
	return s
}

type districtSource struct {
	base
	r   *rand.Rand
	w   int64
	d   int64
	buf []byte
}

func (s *districtSource) Next() bool {
	if s.d == DistrictsPerWarehouse {
		return false
	}
	s.d++
	r := s.r
	b := appendAString(r, s.buf[:0], 6, 10)
	name := len(b)
	b, a := appendAddress(r, b)
	str := string(b)
	s.buf = b
	row := s.row
	row[0] = s.d
	row[1] = s.w
	row[2] = str[:name]
	setAddress(row, 3, str, name, a)
	row[8] = tax(r)
	row[9] = anyDYTD
	row[10] = anyDNextOID
	return true
}

// districtLoop walks (d, n) over the districts of one warehouse and the
// numbers 1..per within each; it reseeds its stream at each district.
type districtLoop struct {
	seed uint64
	tag  streamTag
	w    int
	per  int64
	st   *stream
	d, n int64
}

func newDistrictLoop(seed uint64, tag streamTag, w int, per int64) districtLoop {
	return districtLoop{seed: seed, tag: tag, w: w, per: per, st: newReseedable(), n: per}
}

// next advances to the next number, reporting whether a district was
// started (and false, false at the end).
func (l *districtLoop) next() (ok, newDistrict bool) {
	if l.n == l.per {
		if l.d == DistrictsPerWarehouse {
			return false, false
		}
		l.d++
		l.n = 0
		l.st.reset(l.seed, l.tag, l.w, int(l.d))
		newDistrict = true
	}
	l.n++
	return true, newDistrict
}

// Customers returns the 30,000 rows of customer of warehouse w, district
// by district: (c_id, c_d_id, c_w_id, c_first, c_middle, c_last,
// c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
// c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment,
// c_payment_cnt, c_delivery_cnt, c_data). c_last is LastName(c_id-1) for
// the first 1,000 customers of a district and LastName(NURand(255, 0,
// 999)) with C-Load for the others.
func (c Config) Customers(w int) engine.RowSource {
	if e := c.checkW(w); e != nil {
		return e
	}
	s := &customerSource{
		loop:  newDistrictLoop(c.Seed, tagCustomer, w, CustomersPerDistrict),
		w:     int64(w),
		now:   c.Now,
		cLast: LoadConstants(c.Seed).CLast,
		buf:   make([]byte, 0, 1024),
	}
	s.row = make([]any, 21)
	return s
}

type customerSource struct {
	base
	loop  districtLoop
	w     int64
	now   any
	cLast int64
	buf   []byte
}

// lastNameCustomers is how many customers of a district take their last
// name from their id rather than from NURand.
const lastNameCustomers = 1000

func (s *customerSource) Next() bool {
	if ok, _ := s.loop.next(); !ok {
		return false
	}
	id := s.loop.n
	r := s.loop.st.r
	b := appendAString(r, s.buf[:0], 8, 16)
	first := len(b)
	var last any
	if id <= lastNameCustomers {
		last = lastNamesAny[id-1]
	} else {
		last = lastNamesAny[NURand(r, 255, 0, 999, s.cLast)]
	}
	b, a := appendAddress(r, b)
	b = appendChars(r, b, digitSet, 16)
	phone := len(b)
	credit := anyGC
	if uniformN(r, 10) == 0 {
		credit = anyBC
	}
	discount := float64(Uniform(r, 0, 5000)) / 10000
	b = appendAString(r, b, 300, 500)
	str := string(b)
	s.buf = b
	row := s.row
	row[0] = id
	row[1] = s.loop.d
	row[2] = s.w
	row[3] = str[:first]
	row[4] = anyOE
	row[5] = last
	setAddress(row, 6, str, first, a)
	row[11] = str[a[4]:phone]
	row[12] = s.now
	row[13] = credit
	row[14] = anyCreditLim
	row[15] = discount
	row[16] = anyBalance
	row[17] = anyYTDPayment
	row[18] = anyOne
	row[19] = anyZero
	row[20] = str[phone:]
	return true
}

// History returns the 30,000 rows of history of warehouse w, one per
// customer in customer order: (h_c_id, h_c_d_id, h_c_w_id, h_d_id,
// h_w_id, h_date, h_amount, h_data).
func (c Config) History(w int) engine.RowSource {
	if e := c.checkW(w); e != nil {
		return e
	}
	s := &historySource{
		loop: newDistrictLoop(c.Seed, tagHistory, w, CustomersPerDistrict),
		w:    int64(w),
		now:  c.Now,
	}
	s.row = make([]any, 8)
	return s
}

type historySource struct {
	base
	loop districtLoop
	w    int64
	now  any
	dAny any
	wAny any
}

func (s *historySource) Next() bool {
	ok, newDistrict := s.loop.next()
	if !ok {
		return false
	}
	if newDistrict {
		s.dAny, s.wAny = s.loop.d, s.w
	}
	row := s.row
	row[0] = s.loop.n
	row[1] = s.dAny
	row[2] = s.wAny
	row[3] = s.dAny
	row[4] = s.wAny
	row[5] = s.now
	row[6] = anyHAmount
	row[7] = AString(s.loop.st.r, 12, 24)
	return true
}

// orderHeader draws the random columns of order o of a district from its
// header stream, which orders and order_line both replay: o_ol_cnt in
// [5, 15], then o_carrier_id in [1, 10] for a delivered order (o <
// 2101), nil otherwise.
func orderHeader(h *stream, o int64) (olCnt int64, carrier any) {
	olCnt = Uniform(h.r, 5, 15)
	if o < firstNewOrder {
		carrier = Uniform(h.r, 1, 10)
	}
	return olCnt, carrier
}

// Orders returns the 30,000 rows of orders of warehouse w: (o_id, o_d_id,
// o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local). The
// o_c_id of a district are a random permutation of 1..3000.
func (c Config) Orders(w int) engine.RowSource {
	if e := c.checkW(w); e != nil {
		return e
	}
	s := &ordersSource{
		loop: newDistrictLoop(c.Seed, tagOrderHeader, w, OrdersPerDistrict),
		perm: newReseedable(),
		w:    int64(w),
		now:  c.Now,
	}
	s.row = make([]any, 8)
	return s
}

type ordersSource struct {
	base
	loop districtLoop // header stream
	perm *stream
	w    int64
	now  any
	cIDs [OrdersPerDistrict]int64
}

func (s *ordersSource) Next() bool {
	ok, newDistrict := s.loop.next()
	if !ok {
		return false
	}
	if newDistrict {
		// Fisher–Yates over 1..3000 from the district's own stream.
		s.perm.reset(s.loop.seed, tagOrderPerm, s.loop.w, int(s.loop.d))
		for k := range s.cIDs {
			s.cIDs[k] = int64(k + 1)
		}
		for k := len(s.cIDs) - 1; k > 0; k-- {
			j := uniformN(s.perm.r, uint64(k+1))
			s.cIDs[k], s.cIDs[j] = s.cIDs[j], s.cIDs[k]
		}
	}
	o := s.loop.n
	olCnt, carrier := orderHeader(s.loop.st, o)
	row := s.row
	row[0] = o
	row[1] = s.loop.d
	row[2] = s.w
	row[3] = s.cIDs[o-1]
	row[4] = s.now
	row[5] = carrier
	row[6] = olCnt
	row[7] = anyOne
	return true
}

// NewOrders returns the 9,000 rows of new_order of warehouse w, the
// orders 2101..3000 of each district: (no_o_id, no_d_id, no_w_id).
func (c Config) NewOrders(w int) engine.RowSource {
	if e := c.checkW(w); e != nil {
		return e
	}
	s := &newOrderSource{w: int64(w), o: OrdersPerDistrict}
	s.row = make([]any, 3)
	return s
}

type newOrderSource struct {
	base
	w, d, o int64
}

func (s *newOrderSource) Next() bool {
	if s.o == OrdersPerDistrict {
		if s.d == DistrictsPerWarehouse {
			return false
		}
		s.d++
		s.o = firstNewOrder - 1
	}
	s.o++
	s.row[0] = s.o
	s.row[1] = s.d
	s.row[2] = s.w
	return true
}

// OrderLines returns the order lines of warehouse w, o_ol_cnt per order
// in order order: (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id,
// ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info).
// It replays the orders' header streams, so its orders and line counts
// agree with Orders(w) without materialising it.
func (c Config) OrderLines(w int) engine.RowSource {
	if e := c.checkW(w); e != nil {
		return e
	}
	s := &orderLineSource{
		orders: newDistrictLoop(c.Seed, tagOrderHeader, w, OrdersPerDistrict),
		lines:  newReseedable(),
		w:      int64(w),
		now:    c.Now,
		buf:    make([]byte, 0, 15*distInfoLen),
	}
	s.row = make([]any, 10)
	return s
}

type orderLineSource struct {
	base
	orders   districtLoop // header stream
	lines    *stream
	w        int64
	now      any
	o, olCnt int64 // current order and its number of lines
	ol       int64 // current line
	// Per order: its number, district and warehouse boxed once, its
	// delivery date, and the dist_info of all its lines in one string.
	oAny, dAny, wAny any
	delivery         any
	dist             string
	buf              []byte
}

func (s *orderLineSource) Next() bool {
	if s.ol == s.olCnt {
		ok, newDistrict := s.orders.next()
		if !ok {
			return false
		}
		if newDistrict {
			s.lines.reset(s.orders.seed, tagOrderLine, s.orders.w, int(s.orders.d))
			s.dAny, s.wAny = s.orders.d, s.w
		}
		o := s.orders.n
		s.o = o
		s.olCnt, _ = orderHeader(s.orders.st, o)
		s.ol = 0
		s.oAny = o
		s.delivery = nil
		if o < firstNewOrder {
			s.delivery = s.now
		}
		s.buf = appendChars(s.lines.r, s.buf[:0], alnumSet, int(s.olCnt)*distInfoLen)
		s.dist = string(s.buf)
	}
	s.ol++
	r := s.lines.r
	row := s.row
	row[0] = s.oAny
	row[1] = s.dAny
	row[2] = s.wAny
	row[3] = s.ol
	row[4] = Uniform(r, 1, Items)
	row[5] = s.wAny
	row[6] = s.delivery
	row[7] = anyQuantity
	if s.o < firstNewOrder {
		row[8] = anyZeroAmount
	} else {
		row[8] = float64(Uniform(r, 1, 999999)) / 100
	}
	row[9] = s.dist[(s.ol-1)*distInfoLen : s.ol*distInfoLen]
	return true
}
