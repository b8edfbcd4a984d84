package postgres

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/dbarena/dbarena/engine"
)

// copyText streams an engine.RowSource as COPY's text format: one line
// per row, columns separated by tabs, NULL as \N, and backslash, newline,
// carriage return and tab escaped. Encoding the few Go types workloads load
// directly costs a fraction of a type-map lookup and encode per value, and
// allocates nothing per row.
type copyText struct {
	src  engine.RowSource
	ncol int
	buf  []byte // encoded, not yet read
	off  int
	rows int64
	err  error
	done bool
}

func newCopyText(src engine.RowSource, ncol int) *copyText {
	return &copyText{src: src, ncol: ncol, buf: make([]byte, 0, 128<<10)}
}

// Read fills p with encoded rows, encoding more when its buffer runs dry.
func (c *copyText) Read(p []byte) (int, error) {
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
func (c *copyText) fill(want int) {
	c.buf, c.off = c.buf[:0], 0
	for len(c.buf) < want {
		if !c.src.Next() {
			if err := c.src.Err(); err != nil {
				c.err = err
			}
			c.done = true
			return
		}
		vals, err := c.src.Values()
		if err != nil {
			c.err = err
			return
		}
		if len(vals) != c.ncol {
			c.err = fmt.Errorf("postgres: copy row %d has %d values for %d columns", c.rows+1, len(vals), c.ncol)
			return
		}
		for i, v := range vals {
			if i > 0 {
				c.buf = append(c.buf, '\t')
			}
			if c.buf, err = appendCopyValue(c.buf, v); err != nil {
				c.err = fmt.Errorf("postgres: copy row %d column %d: %w", c.rows+1, i+1, err)
				return
			}
		}
		c.buf = append(c.buf, '\n')
		c.rows++
	}
}

// appendCopyValue appends v in COPY text format.
func appendCopyValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, `\N`...), nil
	case string:
		return appendCopyString(b, x), nil
	case []byte:
		// bytea's hex input form; the backslash itself is escaped.
		b = append(b, `\\x`...)
		const hex = "0123456789abcdef"
		for _, c := range x {
			b = append(b, hex[c>>4], hex[c&15])
		}
		return b, nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		return appendCopyFloat(b, x, 64), nil
	case float32:
		return appendCopyFloat(b, float64(x), 32), nil
	case bool:
		if x {
			return append(b, 't'), nil
		}
		return append(b, 'f'), nil
	case time.Time:
		return x.AppendFormat(b, "2006-01-02 15:04:05.999999Z07:00"), nil
	}
	return b, fmt.Errorf("cannot load a value of type %T", v)
}

func appendCopyFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// appendCopyString escapes the four bytes COPY's text format gives a
// meaning to.
func appendCopyString(b []byte, s string) []byte {
	if !needsCopyEscape(s) {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// needsCopyEscape reports whether s holds a backslash or a byte below
// 0x20 (which includes newline, carriage return and tab), eight bytes at a
// time: x-0x20 borrows into a byte's top bit only for bytes below 0x20, and
// x^0x5c is zero only for a backslash.
func needsCopyEscape(s string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		y := x ^ (0x5c * ones)
		if ((x-0x20*ones)&^x|(y-ones)&^y)&highs != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if copySpecial[s[i]] || s[i] < 0x20 {
			return true
		}
	}
	return false
}

// copySpecial marks the bytes appendCopyString must escape.
var copySpecial = [256]bool{'\\': true, '\n': true, '\r': true, '\t': true}
