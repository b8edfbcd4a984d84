package postgres

import (
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// Every fast path writes exactly what pgx's own binary encoding writes.
func TestCopyFieldsMatchPgx(t *testing.T) {
	m := pgtype.NewMap()
	c := &copyBinary{m: m}
	ts := time.Date(2026, 11, 21, 12, 30, 45, 123456000, time.UTC)
	for _, tc := range []struct {
		oid uint32
		v   any
	}{
		{pgtype.Int4OID, int64(-123456)}, {pgtype.Int4OID, 42}, {pgtype.Int8OID, int64(1) << 40}, {pgtype.Int2OID, int32(-7)},
		{pgtype.Int8OID, uint32(9)},
		{pgtype.TextOID, "tab\there\nnew ünï"}, {pgtype.BPCharOID, "01234-56789"}, {pgtype.VarcharOID, ""},
		{pgtype.Float8OID, 1.25}, {pgtype.Float8OID, math.Inf(-1)},
		{pgtype.BoolOID, true}, {pgtype.BoolOID, false},
		{pgtype.TimestamptzOID, ts},
		// through the type map
		{pgtype.TimestampOID, ts}, {pgtype.NumericOID, 12.5}, {pgtype.ByteaOID, []byte{0, 1, 255}}, {pgtype.Float4OID, float32(0.5)},
	} {
		got, err := c.appendField(nil, tc.oid, tc.v)
		if err != nil {
			t.Errorf("oid %d %#v: %v", tc.oid, tc.v, err)
			continue
		}
		enc, err := m.Encode(tc.oid, pgtype.BinaryFormatCode, tc.v, nil)
		if err != nil {
			t.Fatalf("pgx cannot encode oid %d %#v: %v", tc.oid, tc.v, err)
		}
		want := binary.BigEndian.AppendUint32(nil, uint32(len(enc)))
		want = append(want, enc...)
		if string(got) != string(want) {
			t.Errorf("oid %d %#v: got % x, want % x", tc.oid, tc.v, got, want)
		}
	}
	if got, _ := c.appendField(nil, pgtype.TextOID, nil); string(got) != "\xff\xff\xff\xff" {
		t.Errorf("NULL = % x", got)
	}
	for _, tc := range []struct {
		oid uint32
		v   any
	}{{pgtype.Int4OID, int64(math.MaxInt32) + 1}, {pgtype.Int2OID, 40000}, {pgtype.Int4OID, struct{}{}}} {
		if _, err := c.appendField(nil, tc.oid, tc.v); err == nil {
			t.Errorf("oid %d %#v: no error", tc.oid, tc.v)
		}
	}
}

type sliceSource struct {
	rows [][]any
	i    int
}

func (s *sliceSource) Next() bool             { s.i++; return s.i <= len(s.rows) }
func (s *sliceSource) Values() ([]any, error) { return s.rows[s.i-1], nil }
func (s *sliceSource) Err() error             { return nil }

func TestCopyBinaryStream(t *testing.T) {
	src := &sliceSource{rows: [][]any{{int64(1), "a"}, {int64(2), nil}}}
	b, err := io.ReadAll(newCopyBinary(src, []uint32{pgtype.Int4OID, pgtype.TextOID}, pgtype.NewMap()))
	if err != nil {
		t.Fatal(err)
	}
	want := copySignature +
		"\x00\x02" + "\x00\x00\x00\x04\x00\x00\x00\x01" + "\x00\x00\x00\x01a" +
		"\x00\x02" + "\x00\x00\x00\x04\x00\x00\x00\x02" + "\xff\xff\xff\xff" +
		"\xff\xff"
	if string(b) != want {
		t.Errorf("stream = %q\nwant     %q", b, want)
	}
	_, err = io.ReadAll(newCopyBinary(&sliceSource{rows: [][]any{{1}}}, []uint32{pgtype.Int4OID, pgtype.TextOID}, pgtype.NewMap()))
	if err == nil || !strings.Contains(err.Error(), "1 values for 2 columns") {
		t.Errorf("short row: %v", err)
	}
}

func BenchmarkCopyBinaryRow(b *testing.B) {
	c := &copyBinary{m: pgtype.NewMap()}
	s := strings.Repeat("01234567890-", 10)
	row := []any{int64(123456), int64(250000), s[:119], s[:59]}
	oids := []uint32{pgtype.Int4OID, pgtype.Int4OID, pgtype.BPCharOID, pgtype.BPCharOID}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = buf[:0]
		for j, v := range row {
			buf, _ = c.appendField(buf, oids[j], v)
		}
	}
}

// Numerics written without math/big are pgx's bytes, for the values
// loads write (money amounts, prices, rates) and at the edges: zero and
// negative zero, integers with trailing zeros, tiny and huge magnitudes,
// the most digits a float64 prints, and integer types. Values outside the
// fast path's arithmetic still encode, through pgx.
func TestCopyNumericMatchesPgx(t *testing.T) {
	m := pgtype.NewMap()
	c := &copyBinary{m: m}
	vals := []any{
		0.0, math.Copysign(0, -1), 1.0, -1.0, 12.5, 0.01, -0.01, 0.00001, 1e-5, 123.45, 9999.99, 10000.0, 10001.5,
		100.0, 1e4, 1e8, 1e15, 1e20, 1.5e20, 1e21, 1e300, -1e300, 5e-324, 1e-300, 0.1 + 0.2, 1.0 / 3, math.Pi * 1e6,
		math.MaxFloat64, -math.MaxFloat64, 123456789012345678.0, 0.000123456789012345678, 99999999.99999999,
		math.NaN(), math.Inf(1), math.Inf(-1),
		int64(0), int64(10000), int64(-10000), int64(123456789), int64(math.MaxInt64), int64(math.MinInt64), 7, int32(-42), int32(math.MinInt32),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		// Amounts with 2 decimals, rates with 4, prices, and raw floats.
		vals = append(vals, math.Round(r.Float64()*1e8)/100, -math.Round(r.Float64()*1e6)/1e4,
			float64(r.IntN(100000))/100, r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)), r.Int64()>>r.IntN(63))
	}
	for _, v := range vals {
		got, err := c.appendField(nil, pgtype.NumericOID, v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		enc, err := m.Encode(pgtype.NumericOID, pgtype.BinaryFormatCode, v, nil)
		if err != nil {
			t.Fatalf("pgx cannot encode %#v: %v", v, err)
		}
		want := binary.BigEndian.AppendUint32(nil, uint32(len(enc)))
		if want = append(want, enc...); string(got) != string(want) {
			t.Fatalf("%#v: got % x, want % x", v, got, want)
		}
	}
	// The fast path takes what loads write.
	for _, v := range []any{123.45, -0.01, int64(10000), 7} {
		if _, ok := appendNumeric(nil, v); !ok {
			t.Errorf("%#v left to pgx", v)
		}
	}
}

// BenchmarkCopyNumeric encodes money amounts for a numeric column: as
// COPY does, and through pgx's type map as it did before.
func BenchmarkCopyNumeric(b *testing.B) {
	m := pgtype.NewMap()
	c := &copyBinary{m: m}
	buf := make([]byte, 0, 64)
	b.Run("copy", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			buf, _ = c.appendField(buf[:0], pgtype.NumericOID, float64(i%100000)/100)
		}
	})
	b.Run("pgx", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			buf, _ = m.Encode(pgtype.NumericOID, pgtype.BinaryFormatCode, float64(i%100000)/100, buf[:0])
		}
	})
}
