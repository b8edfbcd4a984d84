package gen

import (
	"math/bits"
	"strconv"
	"time"

	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

// The customer tables of a Load Unit: address, customer,
// customer_taxrate, customer_account, account_permission, watch_list and
// watch_item.
//
// Addresses: ad_id 1 … 4 are the exchanges' (Load Unit 0); Load Unit b
// then has AddressesPerLU ids from 4 + 1500·b + 1: its 1,000 customers'
// in c_id order, then its 500 companies' in co_id order (see
// CustomerAddress and CompanyAddress).

// CustomerAddress is customer cid's c_ad_id.
func CustomerAddress(cid int64) int64 {
	lu := (cid - 1) / LoadUnit
	return Exchanges + lu*AddressesPerLU + (cid-1)%LoadUnit + 1
}

// CompanyAddress is company coID's co_ad_id.
func CompanyAddress(coID int64) int64 {
	lu := (coID - 1) / CompaniesPerLU
	return Exchanges + lu*AddressesPerLU + LoadUnit + (coID-1)%CompaniesPerLU + 1
}

// addressZip is the zip index of address adID (not an exchange's): the
// first draw of the address's stream.
func (m *Model) addressZip(adID int64) int {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowAddress, uint64(adID))
	return r.Intn(ZipCodes)
}

var (
	anyUSA  any = "USA"
	anyACTV any = "ACTV"
)

// addresses yields Load Unit lu's address rows: (ad_id, ad_line1,
// ad_line2, ad_zc_code, ad_ctry).
func (m *Model) addresses(lu int) *tableSource {
	n := int64(AddressesPerLU)
	first := int64(Exchanges + lu*AddressesPerLU + 1)
	id := first
	e := 0
	if lu == 0 {
		n += Exchanges
	}
	var r Rand
	var c cuts
	buf := make([]byte, 0, 128)
	return newTableSource(5, n, func(row []any) {
		c.reset()
		b := buf[:0]
		if lu == 0 && e < Exchanges {
			ex := exchanges[e]
			b = append(b, ex.line1...)
			c.mark(b)
			b = m.appendZip(b, firstZip(ex.div))
			c.mark(b)
			s := string(b)
			row[0], row[1], row[2], row[3], row[4] = ExchangeAddress(e), c.part(s, 0), nil, c.part(s, 1), anyUSA
			e++
			buf = b
			return
		}
		r.Reset(m.cfg.Seed, tagRowAddress, uint64(id))
		z := r.Intn(ZipCodes)
		b = strconv.AppendInt(b, int64(r.Range(1, 9999)), 10)
		b = append(b, ' ')
		b = append(b, streetNames[r.Intn(len(streetNames))]...)
		b = append(b, ' ')
		b = append(b, streetKinds[r.Intn(len(streetKinds))]...)
		c.mark(b)
		line2 := r.Intn(100)
		switch {
		case line2 < 15:
			b = append(b, "Apt "...)
			b = strconv.AppendInt(b, int64(r.Range(1, 999)), 10)
		case line2 < 25:
			b = append(b, "Suite "...)
			b = strconv.AppendInt(b, int64(r.Range(100, 2999)), 10)
		}
		c.mark(b)
		b = m.appendZip(b, z)
		c.mark(b)
		s := string(b)
		row[0], row[1] = id, c.part(s, 0)
		if line2 < 25 {
			row[2] = c.part(s, 1)
		} else {
			row[2] = nil
		}
		row[3], row[4] = c.part(s, 2), anyUSA
		id++
		buf = b
	})
}

// person is a generated person's name.
type person struct {
	female      bool
	first, last string
	middle      byte
}

// drawPerson draws a name: a gender, a first name of that gender, a last
// name and a middle initial.
func drawPerson(r *Rand) person {
	p := person{female: r.Intn(2) == 0}
	if p.female {
		p.first = femaleFirst[r.Intn(len(femaleFirst))]
	} else {
		p.first = maleFirst[r.Intn(len(maleFirst))]
	}
	p.last = lastNames[r.Intn(len(lastNames))]
	p.middle = byte('A' + r.Intn(26))
	return p
}

// customerPerson is customer cid's name: the first draws of its stream.
func (m *Model) customerPerson(r *Rand, cid int64) person {
	r.Reset(m.cfg.Seed, tagRowCustomer, uint64(cid))
	return drawPerson(r)
}

// Tax ids: a customer's is "ddd-dd-dddd", a bijection of c_id onto
// 10^9 values; an account's extra permitted person's is "dd-dddddddd", a
// bijection of 2·ca_id + k onto 10^10 values, so never a customer's.

// appendTaxID appends customer cid's c_tax_id.
func (m *Model) appendTaxID(b []byte, cid int64) []byte {
	const mod = 1_000_000_000
	q := mix(m.cfg.Seed, tagRowTaxID) % mod
	x := (uint64(cid)%mod*387420489 + q) % mod // 3^18 is prime to 10
	b = appendPadded(b, int64(x/1_000_000), 3)
	b = append(b, '-')
	b = appendPadded(b, int64(x/10_000%100), 2)
	b = append(b, '-')
	return appendPadded(b, int64(x%10_000), 4)
}

// CustomerTaxID is customer cid's c_tax_id (unique).
func (m *Model) CustomerTaxID(cid int64) string { return string(m.appendTaxID(nil, cid)) }

// appendPermissionTaxID appends the tax id of account caID's k-th extra
// permitted person.
func (m *Model) appendPermissionTaxID(b []byte, caID int64, k int) []byte {
	const mod = 10_000_000_000
	q := mix(m.cfg.Seed, tagRowPermissionTax) % mod
	hi, lo := bits.Mul64((uint64(caID)*2+uint64(k))%mod, 3486784401) // 3^20 is prime to 10
	x := (bits.Rem64(hi, lo, mod) + q) % mod
	b = appendPadded(b, int64(x/100_000_000), 2)
	b = append(b, '-')
	return appendPadded(b, int64(x%100_000_000), 8)
}

// boxed strings of single letters and genders.
var (
	letterBoxes = func() (out [26]any) {
		for i := range out {
			out[i] = string(rune('A' + i))
		}
		return
	}()
	anyM any = "M"
	anyF any = "F"
)

// appendLower appends s in lower case (ASCII).
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'A' && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		b = append(b, ch)
	}
	return b
}

// customers yields Load Unit lu's customer rows (see schema).
func (m *Model) customers(lu int) *tableSource {
	cid := int64(lu) * LoadUnit
	var r Rand
	var c cuts
	buf := make([]byte, 0, 256)
	tiers := [4]any{nil, int64(1), int64(2), int64(3)}
	anyOne := any("1")
	dob0 := utcDate(1930, time.January, 1)
	return newTableSource(24, LoadUnit, func(row []any) {
		cid++
		p := m.customerPerson(&r, cid)
		c.reset()
		b := m.appendTaxID(buf[:0], cid)
		c.mark(b) // 0 tax id
		row[0], row[2], row[3], row[4] = cid, anyACTV, p.last, p.first
		row[5] = letterBoxes[p.middle-'A']
		if p.female {
			row[6] = anyF
		} else {
			row[6] = anyM
		}
		row[7] = tiers[m.Tier(cid)]
		row[8] = dob0.AddDate(0, 0, r.Intn(75*365))
		row[9] = CustomerAddress(cid)
		// Phones: the first always, the second for 50%, the third for
		// 25%; an extension for 20% of them.
		present := [3]bool{true, r.Intn(2) == 0, r.Intn(4) == 0}
		for k := range 3 {
			if !present[k] {
				continue
			}
			b = strconv.AppendInt(b, int64(r.Range(201, 989)), 10)
			c.mark(b) // area
			b = strconv.AppendInt(b, int64(r.Range(2000000, 9999999)), 10)
			c.mark(b) // local
			if r.Intn(5) == 0 {
				b = strconv.AppendInt(b, int64(r.Range(1, 9999)), 10)
			}
			c.mark(b) // ext
		}
		dom := emailDomains[r.Intn(len(emailDomains))]
		b = appendLower(b, p.first)
		b = append(b, '.')
		b = appendLower(b, p.last)
		b = append(b, '@')
		b = append(b, dom...)
		c.mark(b) // email 1
		second := r.Intn(2) == 0
		if second {
			b = appendLower(b, p.first[:1])
			b = appendLower(b, p.last)
			b = strconv.AppendInt(b, int64(r.Range(1, 99)), 10)
			b = append(b, '@')
			b = append(b, emailDomains[r.Intn(len(emailDomains))]...)
		}
		c.mark(b) // email 2
		buf = b
		s := string(b)
		row[1] = c.part(s, 0)
		part := 1
		for k := range 3 {
			at := 10 + 4*k
			if !present[k] {
				row[at], row[at+1], row[at+2], row[at+3] = nil, nil, nil, nil
				continue
			}
			row[at], row[at+1], row[at+2] = anyOne, c.part(s, part), c.part(s, part+1)
			if ext := c.part(s, part+2); ext != "" {
				row[at+3] = ext
			} else {
				row[at+3] = nil
			}
			part += 3
		}
		row[22] = c.part(s, part)
		if second {
			row[23] = c.part(s, part+1)
		} else {
			row[23] = nil
		}
	})
}

// CustomerTax returns customer cid's two customer_taxrate ids, the
// national one ("US1" … "US5") and its address's division's, and their
// sum in units of 10^-5 (the rate Trade-Order and Trade-Result apply).
func (m *Model) CustomerTax(cid int64) (national, division string, rate int64) {
	k, d, dk := m.customerTax(cid)
	return "US" + string(rune('1'+k)), divisions[d][0] + string(rune('1'+dk)), nationalRates[k] + m.divisionRate(d, dk)
}

// customerTax returns customer cid's national rate's index, its
// division, and the index of its division rate.
func (m *Model) customerTax(cid int64) (k, d, dk int) {
	d = zipDivision(m.addressZip(CustomerAddress(cid)))
	var r Rand
	r.Reset(m.cfg.Seed, tagRowCustomerTax, uint64(cid))
	return r.Intn(NationalRates), d, r.Intn(divisionRates(d))
}

// customerTaxrates yields Load Unit lu's customer_taxrate rows:
// (cx_tx_id, cx_c_id), the national rate then the division's.
func (m *Model) customerTaxrates(lu int) *tableSource {
	var national [NationalRates]any
	for k := range national {
		national[k] = "US" + string(rune('1'+k))
	}
	div := make([][]any, len(divisions))
	for d := range div {
		for k := range divisionRates(d) {
			div[d] = append(div[d], divisions[d][0]+string(rune('1'+k)))
		}
	}
	cid := int64(lu) * LoadUnit
	var cidBox any
	var dRate any
	odd := false
	return newTableSource(2, 2*LoadUnit, func(row []any) {
		if !odd {
			cid++
			cidBox = cid
			k, d, dk := m.customerTax(cid)
			row[0], row[1] = national[k], cidBox
			dRate = div[d][dk]
		} else {
			row[0], row[1] = dRate, cidBox
		}
		odd = !odd
	})
}

// eachAccount calls fn with every account of Load Unit lu, in order.
func (m *Model) eachAccount(lu int, fn func(ca int64)) {
	for c := int64(lu)*LoadUnit + 1; c <= int64(lu+1)*LoadUnit; c++ {
		first, n := m.Accounts(c)
		for k := range int64(n) {
			fn(first + k)
		}
	}
}

// AccountBalance is account caID's initial ca_bal in cents: positive
// (up to $100,000) for 80% of accounts, else negative (down to
// -$10,000).
func (m *Model) AccountBalance(caID int64) int64 {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowAccount, uint64(caID))
	return accountBalance(&r)
}

func accountBalance(r *Rand) int64 {
	if r.Intn(100) < 80 {
		return r.Int64Range(1, 10_000_000)
	}
	return -r.Int64Range(1, 1_000_000)
}

// customerAccounts yields Load Unit lu's customer_account rows: (ca_id,
// ca_b_id, ca_c_id, ca_name, ca_tax_st, ca_bal).
func (m *Model) customerAccounts(lu int) *tableSource {
	var r, pr Rand
	buf := make([]byte, 0, 64)
	cid := int64(lu) * LoadUnit
	var first int64
	var n, k int
	var cidBox any
	var p person
	taxSt := [3]any{int64(0), int64(1), int64(2)}
	return newTableSource(6, AccountsPerCustomer*LoadUnit, func(row []any) {
		for k == n {
			cid++
			first, n = m.Accounts(cid)
			k = 0
			cidBox = cid
			p = m.customerPerson(&pr, cid)
		}
		ca := first + int64(k)
		k++
		r.Reset(m.cfg.Seed, tagRowAccount, uint64(ca))
		bal := accountBalance(&r)
		b := append(buf[:0], p.first...)
		b = append(b, ' ')
		b = append(b, p.last...)
		b = append(b, ' ')
		b = append(b, accountKinds[r.Intn(len(accountKinds))]...)
		buf = b
		row[0], row[1], row[2], row[3] = ca, m.AccountBroker(ca), cidBox, string(b)
		row[4], row[5] = taxSt[m.AccountTaxStatus(ca)], decimalCents(bal)
	})
}

// extraPermissions is the number of people besides the owner permitted
// on account caID: 0 for 60% of accounts, 1 for 38%, 2 for 2%.
func (m *Model) extraPermissions(caID int64) int {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowPermission, uint64(caID))
	return extraPermissions(&r)
}

func extraPermissions(r *Rand) int {
	switch x := r.Intn(100); {
	case x < 60:
		return 0
	case x < 98:
		return 1
	}
	return 2
}

// Permissions is the number of account_permission rows of account caID:
// the owner's and 0, 1 or 2 more.
func (m *Model) Permissions(caID int64) int { return 1 + m.extraPermissions(caID) }

// accountPermissions yields Load Unit lu's account_permission rows:
// (ap_ca_id, ap_acl, ap_tax_id, ap_l_name, ap_f_name), the owner's row
// (acl "0000") first, then the extra people's ("0001", "0011").
func (m *Model) accountPermissions(lu int) *tableSource {
	var r, pr Rand
	buf := make([]byte, 0, 64)
	cid := int64(lu) * LoadUnit
	var first int64
	var n, k int
	var owner person
	var ownerTax any
	var caBox any
	var ca int64
	extra, done := 0, 1 // the first call moves to the first account
	acls := [3]any{"0000", "0001", "0011"}
	return newTableSource(5, m.RowCount(schema.AccountPermission, lu), func(row []any) {
		if done > extra {
			for k == n {
				cid++
				first, n = m.Accounts(cid)
				k = 0
				owner = m.customerPerson(&pr, cid)
				ownerTax = m.CustomerTaxID(cid)
			}
			ca = first + int64(k)
			k++
			caBox = ca
			r.Reset(m.cfg.Seed, tagRowPermission, uint64(ca))
			extra, done = extraPermissions(&r), 0
		}
		if done == 0 {
			row[0], row[1], row[2], row[3], row[4] = caBox, acls[0], ownerTax, owner.last, owner.first
			done++
			return
		}
		p := drawPerson(&r)
		b := m.appendPermissionTaxID(buf[:0], ca, done-1)
		buf = b
		row[0], row[1], row[2], row[3], row[4] = caBox, acls[done], string(b), p.last, p.first
		done++
	})
}

// watchSize is the number of items of customer cid's watch list: 50 …
// 150, uniformly.
func (m *Model) watchSize(cid int64) int {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowWatch, uint64(cid))
	return r.Range(MinWatch, MaxWatch)
}

// WatchList appends to dst the securities (0-based indexes) of customer
// cid's watch list (wl_id = wl_c_id = cid): between 50 and 150 distinct
// securities, 100 on average, uniform over every security of the
// database, in the order drawn.
func (m *Model) WatchList(cid int64, dst []int64) []int64 {
	var set watchSet
	return m.watchList(cid, dst, &set)
}

// watchSet is a small open-addressing set of the securities of one list.
type watchSet struct {
	keys  [512]int64
	stamp [512]uint32
	gen   uint32
}

// reset empties the set.
func (w *watchSet) reset() { w.gen++ }

// add adds s and reports whether it was not there.
func (w *watchSet) add(s int64) bool {
	i := mix(0, uint64(s)) & 511
	for w.stamp[i] == w.gen {
		if w.keys[i] == s {
			return false
		}
		i = (i + 1) & 511
	}
	w.stamp[i], w.keys[i] = w.gen, s
	return true
}

func (m *Model) watchList(cid int64, dst []int64, set *watchSet) []int64 {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowWatch, uint64(cid))
	n := r.Range(MinWatch, MaxWatch)
	total := m.cfg.Securities()
	if int64(n) > total {
		n = int(total)
	}
	set.reset()
	for added := 0; added < n; {
		s := int64(r.Uint64() % uint64(total))
		if set.add(s) {
			dst = append(dst, s)
			added++
		}
	}
	return dst
}

// watchLists yields Load Unit lu's watch_list rows: (wl_id, wl_c_id),
// wl_id = wl_c_id = c_id.
func (m *Model) watchLists(lu int) *tableSource {
	cid := int64(lu) * LoadUnit
	return newTableSource(2, LoadUnit, func(row []any) {
		cid++
		box := any(cid)
		row[0], row[1] = box, box
	})
}

// watchItems yields Load Unit lu's watch_item rows: (wi_wl_id,
// wi_s_symb), list by list.
func (m *Model) watchItems(lu int) *tableSource {
	set := new(watchSet)
	cid := int64(lu) * LoadUnit
	var list []int64
	i := 0
	var wl any
	buf := make([]byte, 0, 16)
	return newTableSource(2, m.RowCount(schema.WatchItem, lu), func(row []any) {
		for i == len(list) {
			cid++
			list = m.watchList(cid, list[:0], set)
			i = 0
			wl = cid
		}
		b := appendTicker(buf[:0], list[i])
		buf = b
		i++
		row[0], row[1] = wl, string(b)
	})
}
