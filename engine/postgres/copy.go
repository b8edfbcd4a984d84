package postgres

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
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
