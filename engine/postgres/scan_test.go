package postgres

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// numericBinary encodes the decimal text s as PostgreSQL's binary NUMERIC,
// through pgx's own codec.
func numericBinary(t *testing.T, m *pgtype.Map, s string) []byte {
	t.Helper()
	var n pgtype.Numeric
	if err := n.Scan(s); err != nil {
		t.Fatalf("numeric %q: %v", s, err)
	}
	b, err := m.Encode(pgtype.NumericOID, pgtype.BinaryFormatCode, n, nil)
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return b
}

// big300 is 10^300.
var big300 = "1" + strings.Repeat("0", 300)

// The fast path gives exactly what pgx's general decoding gives (the
// float64 nearest to the decimal, as strconv.ParseFloat reads it) for
// every value it takes, and leaves NaN, infinities and values beyond its
// range to the general path, which then decodes them.
func TestNumericFloat64MatchesPgx(t *testing.T) {
	m := pgtype.NewMap()
	fd := &pgconn.FieldDescription{Name: "n", DataTypeOID: pgtype.NumericOID, Format: pgtype.BinaryFormatCode}
	values := []string{"0", "1", "-1", "0.1", "0.2", "0.3", "123.45", "-123.45", "9999.9999", "10000",
		"100000000", "0.0001", "0.00001", "0.000000000000000000000000000001", "12345678901234.56", "9007199254740993", "9007199254740992",
		"123456789012345678901234567890", "10000000000000000000000", "100000000000000000000000", big300, "-0.000000000000000000001", "3.14159265358979323846",
		"NaN", "Infinity", "-Infinity"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		// TPC-E's and TPC-C's money and price columns, and wider ones.
		switch i % 4 {
		case 0:
			values = append(values, strconv.FormatFloat(float64(r.Int64N(1e12))/100, 'f', 2, 64))
		case 1:
			values = append(values, strconv.FormatInt(r.Int64N(1e15)-5e14, 10)+"."+strconv.FormatInt(r.Int64N(1e6), 10))
		case 2:
			values = append(values, strconv.FormatFloat(r.NormFloat64()*1e6, 'f', r.IntN(12), 64))
		default:
			values = append(values, strconv.FormatFloat(r.Float64()*math.Pow(10, float64(r.IntN(40)-20)), 'f', -1, 64))
		}
	}
	var p scanPlans
	fast := 0
	for _, s := range values {
		src := numericBinary(t, m, s)
		var want float64
		if err := m.Scan(pgtype.NumericOID, pgtype.BinaryFormatCode, src, &want); err != nil {
			t.Fatalf("pgx: %q: %v", s, err)
		}
		got, ok := numericFloat64(src)
		if ok {
			fast++
			if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("%q: fast path %v (%x), pgx %v (%x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
			}
		}
		var viaPlans float64
		if err := p.scan(m, 0, fd, src, &viaPlans); err != nil || math.Float64bits(viaPlans) != math.Float64bits(want) {
			t.Errorf("%q: scan %v (%v), want %v", s, viaPlans, err, want)
		}
	}
	// Money and prices (up to 15 digits, 2 decimals) all take it.
	for i := 0; i < 1000; i++ {
		s := strconv.FormatFloat(float64(r.Int64N(1e15))/100, 'f', 2, 64)
		if _, ok := numericFloat64(numericBinary(t, m, s)); !ok {
			t.Fatalf("%q: left to the general path, want the fast one", s)
		}
	}
	t.Logf("fast path: %d of %d values", fast, len(values))
	for _, s := range []string{"NaN", "Infinity", "-Infinity", "123456789012345678901234567890", big300} {
		if _, ok := numericFloat64(numericBinary(t, m, s)); ok {
			t.Errorf("%q: fast path took it, want it left to pgx", s)
		}
	}
	if _, ok := numericFloat64([]byte{0, 1, 0}); ok {
		t.Error("truncated input: fast path took it")
	}
	// A zero digit group (PostgreSQL never sends one) is zero, not a hang.
	if v, ok := numericFloat64([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 0}); !ok || v != 0 {
		t.Errorf("one zero digit group: %v, %v; want 0", v, ok)
	}
}

// A column's plan is kept while its type and destination stay, and made
// again when the destination's type changes; a nil destination skips the
// column, and NULL reaches the general path's error.
func TestScanPlansFollowTheDestination(t *testing.T) {
	m := pgtype.NewMap()
	var p scanPlans
	fd := &pgconn.FieldDescription{Name: "i", DataTypeOID: pgtype.Int8OID, Format: pgtype.TextFormatCode}
	var i int64
	var s string
	var f float64
	if err := p.scan(m, 2, fd, []byte("42"), &i); err != nil || i != 42 {
		t.Fatalf("int64: %d, %v", i, err)
	}
	if err := p.scan(m, 2, fd, []byte("43"), &s); err != nil || s != "43" {
		t.Fatalf("string after int64: %q, %v", s, err)
	}
	if err := p.scan(m, 2, fd, []byte("44"), &i); err != nil || i != 44 {
		t.Fatalf("int64 again: %d, %v", i, err)
	}
	if err := p.scan(m, 0, fd, []byte("45"), nil); err != nil {
		t.Fatalf("nil destination: %v", err)
	}
	nd := &pgconn.FieldDescription{Name: "n", DataTypeOID: pgtype.NumericOID, Format: pgtype.BinaryFormatCode}
	if err := p.scan(m, 1, nd, nil, &f); err == nil {
		t.Error("NULL into *float64: no error")
	}
	var pf *float64
	if err := p.scan(m, 1, nd, nil, &pf); err != nil || pf != nil {
		t.Errorf("NULL into **float64: %v, %v", pf, err)
	}
}
