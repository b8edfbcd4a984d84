package postgres

import (
	"encoding/binary"
	"io"
	"math"
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
