package postgres

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dbarena/dbarena/engine"
)

// copyBinary streams an engine.RowSource in COPY's binary format. The
// server parses binary rows for about three quarters of the CPU text rows
// cost it (no line splitting, no re-validation of the whole line, no
// integer parsing), and encoding the few Go types workloads load directly,
// by the column's type OID, costs the client a fraction of a type-map
// lookup per value and allocates nothing per row. Other combinations go
// through pgx's type map.
type copyBinary struct {
	src    engine.RowSource
	oids   []uint32
	m      *pgtype.Map
	buf    []byte // encoded, not yet read
	off    int
	rows   int64
	err    error
	header bool
	done   bool
}

// copySignature starts every binary COPY stream: the signature, a flags
// word and the length of the header extension area, both zero.
const copySignature = "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00"

func newCopyBinary(src engine.RowSource, oids []uint32, m *pgtype.Map) *copyBinary {
	return &copyBinary{src: src, oids: oids, m: m, buf: make([]byte, 0, 128<<10)}
}

// Read fills p with encoded rows, encoding more when its buffer runs dry.
func (c *copyBinary) Read(p []byte) (int, error) {
	for c.off == len(c.buf) {
		if c.err != nil {
			return 0, c.err
		}
		if c.done {
			return 0, io.EOF
		}
		c.fill(len(p))
	}
	n := copy(p, c.buf[c.off:])
	c.off += n
	return n, nil
}

// fill encodes rows until about want bytes are buffered or src ends.
func (c *copyBinary) fill(want int) {
	c.buf, c.off = c.buf[:0], 0
	if !c.header {
		c.buf = append(c.buf, copySignature...)
		c.header = true
	}
	for len(c.buf) < want {
		if !c.src.Next() {
			if err := c.src.Err(); err != nil {
				c.err = err
				return
			}
			c.buf = binary.BigEndian.AppendUint16(c.buf, 0xffff) // trailer: -1
			c.done = true
			return
		}
		vals, err := c.src.Values()
		if err != nil {
			c.err = err
			return
		}
		if len(vals) != len(c.oids) {
			c.err = fmt.Errorf("postgres: copy row %d has %d values for %d columns", c.rows+1, len(vals), len(c.oids))
			return
		}
		c.buf = binary.BigEndian.AppendUint16(c.buf, uint16(len(vals)))
		for i, v := range vals {
			if c.buf, err = c.appendField(c.buf, c.oids[i], v); err != nil {
				c.err = fmt.Errorf("postgres: copy row %d column %d: %w", c.rows+1, i+1, err)
				return
			}
		}
		c.rows++
	}
}

// appendField appends one field: its length (-1 for NULL) and its bytes.
func (c *copyBinary) appendField(b []byte, oid uint32, v any) ([]byte, error) {
	if v == nil {
		return binary.BigEndian.AppendUint32(b, math.MaxUint32), nil
	}
	switch oid {
	case pgtype.Int4OID, pgtype.Int8OID, pgtype.Int2OID:
		if n, ok := asInt64(v); ok {
			return appendBinaryInt(b, oid, n)
		}
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID:
		// The binary form of a text type is its bytes.
		if s, ok := v.(string); ok {
			b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
			return append(b, s...), nil
		}
	case pgtype.Float8OID:
		if f, ok := v.(float64); ok {
			b = binary.BigEndian.AppendUint32(b, 8)
			return binary.BigEndian.AppendUint64(b, math.Float64bits(f)), nil
		}
	case pgtype.BoolOID:
		if x, ok := v.(bool); ok {
			b = binary.BigEndian.AppendUint32(b, 1)
			if x {
				return append(b, 1), nil
			}
			return append(b, 0), nil
		}
	case pgtype.NumericOID:
		if out, ok := appendNumeric(b, v); ok {
			return out, nil
		}
	case pgtype.TimestamptzOID:
		if t, ok := v.(time.Time); ok {
			// Microseconds since 2000-01-01 00:00:00 UTC.
			b = binary.BigEndian.AppendUint32(b, 8)
			return binary.BigEndian.AppendUint64(b, uint64(t.UnixMicro()-pgEpochMicros)), nil
		}
	}
	// Anything else: pgx's own binary encoding, length patched in after.
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	out, err := c.m.Encode(oid, pgtype.BinaryFormatCode, v, b)
	if err != nil {
		return b[:at], err
	}
	if out == nil { // the value encodes as NULL
		return binary.BigEndian.AppendUint32(b[:at], math.MaxUint32), nil
	}
	binary.BigEndian.PutUint32(out[at:], uint32(len(out)-at-4))
	return out, nil
}

// pgEpochMicros is PostgreSQL's epoch, 2000-01-01 UTC, in Unix microseconds.
var pgEpochMicros = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case uint32:
		return int64(x), true
	}
	return 0, false
}

// appendBinaryInt appends n as a field of integer type oid, range-checked.
func appendBinaryInt(b []byte, oid uint32, n int64) ([]byte, error) {
	switch oid {
	case pgtype.Int8OID:
		b = binary.BigEndian.AppendUint32(b, 8)
		return binary.BigEndian.AppendUint64(b, uint64(n)), nil
	case pgtype.Int4OID:
		if n < math.MinInt32 || n > math.MaxInt32 {
			return b, fmt.Errorf("%d is out of range for integer", n)
		}
		b = binary.BigEndian.AppendUint32(b, 4)
		return binary.BigEndian.AppendUint32(b, uint32(int32(n))), nil
	default: // Int2OID
		if n < math.MinInt16 || n > math.MaxInt16 {
			return b, fmt.Errorf("%d is out of range for smallint", n)
		}
		b = binary.BigEndian.AppendUint32(b, 2)
		return binary.BigEndian.AppendUint16(b, uint16(int16(n))), nil
	}
}

// appendNumeric appends a float64 or an integer as a numeric field, the
// bytes pgx's numeric codec writes for it (the shortest decimal that
// reads back as the float, as strconv formats it), computed in machine
// integers instead of math/big: loads of money columns spent about 40 %
// of their CPU there. ok is false for what it leaves to pgx: NaN, the
// infinities, and values whose digits do not fit its arithmetic.
func appendNumeric(b []byte, v any) (_ []byte, ok bool) {
	var m uint64 // the digits, without sign or point
	var exp int  // m × 10^exp is the value
	neg := false
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, false
		}
		var buf [32]byte
		s := strconv.AppendFloat(buf[:0], x, 'f', -1, 64)
		if s[0] == '-' {
			neg, s = true, s[1:]
		}
		if len(s) > 20 {
			return b, false
		}
		point := -1
		for i, c := range s {
			if c == '.' {
				point = i
				continue
			}
			if m > (math.MaxUint64-9)/10 {
				return b, false
			}
			m = m*10 + uint64(c-'0')
		}
		if point >= 0 {
			exp = -(len(s) - point - 1)
		} else {
			// An integer's trailing zeros go into the exponent, as pgx
			// parses them; "-0" keeps its zero.
			for m != 0 && m%10 == 0 {
				m /= 10
				exp++
			}
		}
	case int64:
		m, neg = uint64(x), x < 0
		if neg {
			m = -m
		}
	case int:
		return appendNumeric(b, int64(x))
	case int32:
		return appendNumeric(b, int64(x))
	default:
		return b, false
	}
	if m == 0 {
		neg = false
	}
	// Base-10,000 digits: the exponent made a multiple of 4.
	if m > math.MaxUint64/1000 {
		return b, false
	}
	e := exp
	switch exp % 4 {
	case 1, -3:
		e, m = exp-1, m*10
	case 2, -2:
		e, m = exp-2, m*100
	case 3, -1:
		e, m = exp-3, m*1000
	}
	whole, frac := m, uint64(0)
	nfrac := 0
	if e < 0 {
		nfrac = -e / 4
		if -e < 20 {
			div := pow10u[-e]
			whole, frac = m/div, m%div
		} else {
			whole, frac = 0, m
		}
	}
	var wd [5]int16 // whole digits, least significant first (m < 10^20)
	nwhole := 0
	for ; whole != 0; whole /= 10000 {
		wd[nwhole] = int16(whole % 10000)
		nwhole++
	}
	weight := nwhole - 1
	if nwhole > 0 {
		if e > 0 {
			weight += e / 4
		}
	} else {
		weight = e/4 - 1 + nfrac
	}
	if weight > math.MaxInt16 || weight < math.MinInt16 || exp < -math.MaxInt16 || nwhole+nfrac > math.MaxUint16 {
		return b, false
	}
	dscale := 0
	if exp < 0 {
		dscale = -exp
	}
	b = binary.BigEndian.AppendUint32(b, uint32(8+2*(nwhole+nfrac)))
	b = binary.BigEndian.AppendUint16(b, uint16(nwhole+nfrac))
	b = binary.BigEndian.AppendUint16(b, uint16(int16(weight)))
	if neg {
		b = binary.BigEndian.AppendUint16(b, 0x4000)
	} else {
		b = binary.BigEndian.AppendUint16(b, 0)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(dscale))
	for i := nwhole - 1; i >= 0; i-- {
		b = binary.BigEndian.AppendUint16(b, uint16(wd[i]))
	}
	// The fraction's digits, most significant first: those above m's
	// reach are zeros.
	for i := nfrac - 1; i >= 0; i-- {
		d := uint64(0)
		if i < 5 {
			d = frac / pow10u[4*i] % 10000
		}
		b = binary.BigEndian.AppendUint16(b, uint16(d))
	}
	return b, true
}

// pow10u[i] is 10^i.
var pow10u = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()
