package mongo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// errExtJSON reports a valid JSON value the transcoder leaves to
// bson.UnmarshalExtJSON: one with a key that begins with '$', which
// Extended JSON may read as a typed value ({"$oid": …}, {"$date": …}).
var errExtJSON = errors.New("extended JSON")

// maxDepth is the deepest nesting of objects and arrays the transcoder
// accepts. Nothing deeper could load: MongoDB stores at most 180 levels,
// and bson.UnmarshalExtJSON refused 200 levels of objects (with the
// document it was wrapped in).
const maxDepth = 199

// jsonTranscoder turns JSON text into BSON the way bson.UnmarshalExtJSON
// (relaxed) does for plain JSON, without its per-byte reader and token
// allocations: objects become embedded documents with their keys in
// order (duplicates kept), arrays become arrays, strings are unescaped
// (an unpaired UTF-16 surrogate becomes U+FFFD), an integer becomes an
// int32 when it fits, else an int64 when it fits, else a double, and a
// number with a fraction or an exponent becomes a double. It is strict
// RFC 8259 JSON: control characters in strings, bad \u escapes and text
// after the value are errors, and so is nesting deeper than maxDepth. A
// valid value with a '$' key reports errExtJSON.
//
// The zero value is ready; the buffer is reused between values, so a
// jsonTranscoder is not safe for concurrent use.
type jsonTranscoder struct {
	in    []byte
	pos   int
	out   []byte
	depth int
	ext   bool // a key begins with '$'
}

// syntaxError is a JSON syntax error at a byte offset of the value.
type syntaxError struct {
	msg string
	off int
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.msg, e.off) }

// transcode returns the BSON of one JSON value. The returned bytes are
// the transcoder's buffer, valid until the next call.
func (d *jsonTranscoder) transcode(data []byte) (bson.Type, []byte, error) {
	d.in, d.pos, d.depth, d.ext = data, 0, 0, false
	d.space()
	out, t, err := d.value(d.out[:0])
	d.out = out
	if err != nil {
		return 0, nil, err
	}
	d.space()
	if d.pos < len(d.in) {
		return 0, nil, d.fail("text after the value")
	}
	if d.ext {
		return 0, nil, errExtJSON
	}
	return t, out, nil
}

func (d *jsonTranscoder) fail(msg string) error {
	if d.pos >= len(d.in) {
		return &syntaxError{msg: "unexpected end of input", off: d.pos}
	}
	return &syntaxError{msg: fmt.Sprintf("%s (%q)", msg, d.in[d.pos]), off: d.pos}
}

func (d *jsonTranscoder) space() {
	for d.pos < len(d.in) {
		switch d.in[d.pos] {
		case ' ', '\t', '\r', '\n':
			d.pos++
		default:
			return
		}
	}
}

// value appends to out the BSON value (without type or key) of the JSON
// value at d.pos and returns its type. The buffer travels as an argument,
// not in d, so that appending to it needs no write barrier.
func (d *jsonTranscoder) value(out []byte) ([]byte, bson.Type, error) {
	if d.pos >= len(d.in) {
		return out, 0, d.fail("")
	}
	var err error
	switch c := d.in[d.pos]; {
	case c == '{':
		out, err = d.object(out)
		return out, bson.TypeEmbeddedDocument, err
	case c == '[':
		out, err = d.array(out)
		return out, bson.TypeArray, err
	case c == '"':
		out, err = d.str(out)
		return out, bson.TypeString, err
	case c == '-' || c >= '0' && c <= '9':
		return d.number(out)
	case c == 't':
		return append(out, 1), bson.TypeBoolean, d.literal("true")
	case c == 'f':
		return append(out, 0), bson.TypeBoolean, d.literal("false")
	case c == 'n':
		return out, bson.TypeNull, d.literal("null")
	}
	return out, 0, d.fail("unexpected character")
}

func (d *jsonTranscoder) literal(word string) error {
	if len(d.in)-d.pos < len(word) || string(d.in[d.pos:d.pos+len(word)]) != word {
		return d.fail("invalid literal")
	}
	d.pos += len(word)
	return nil
}

func (d *jsonTranscoder) object(out []byte) ([]byte, error) {
	if d.depth++; d.depth > maxDepth {
		return out, &syntaxError{msg: fmt.Sprintf("nested deeper than %d levels", maxDepth), off: d.pos}
	}
	d.pos++ // {
	start, out := bsoncore.ReserveLength(out)
	d.space()
	if d.pos < len(d.in) && d.in[d.pos] == '}' {
		d.pos++
		return d.end(out, start), nil
	}
	for {
		if d.pos >= len(d.in) || d.in[d.pos] != '"' {
			return out, d.fail("expected a key")
		}
		at := len(out)
		out = append(out, 0) // the type, set once the value is read
		var t bson.Type
		var err error
		if out, err = d.key(out); err != nil {
			return out, err
		}
		d.space()
		if d.pos >= len(d.in) || d.in[d.pos] != ':' {
			return out, d.fail("expected ':'")
		}
		d.pos++
		d.space()
		if out, t, err = d.value(out); err != nil {
			return out, err
		}
		out[at] = byte(t)
		if done, err := d.next('}'); err != nil {
			return out, err
		} else if done {
			return d.end(out, start), nil
		}
	}
}

func (d *jsonTranscoder) array(out []byte) ([]byte, error) {
	if d.depth++; d.depth > maxDepth {
		return out, &syntaxError{msg: fmt.Sprintf("nested deeper than %d levels", maxDepth), off: d.pos}
	}
	d.pos++ // [
	start, out := bsoncore.ReserveLength(out)
	d.space()
	if d.pos < len(d.in) && d.in[d.pos] == ']' {
		d.pos++
		return d.end(out, start), nil
	}
	for i := 0; ; i++ {
		at := len(out)
		out = append(strconv.AppendInt(append(out, 0), int64(i), 10), 0)
		var t bson.Type
		var err error
		if out, t, err = d.value(out); err != nil {
			return out, err
		}
		out[at] = byte(t)
		if done, err := d.next(']'); err != nil {
			return out, err
		} else if done {
			return d.end(out, start), nil
		}
	}
}

// next consumes the ',' between members (false) or the closing bracket
// (true) after a member.
func (d *jsonTranscoder) next(closing byte) (bool, error) {
	d.space()
	if d.pos < len(d.in) {
		switch d.in[d.pos] {
		case ',':
			d.pos++
			d.space()
			return false, nil
		case closing:
			d.pos++
			return true, nil
		}
	}
	return false, d.fail("expected ',' or '" + string(closing) + "'")
}

// end closes the document or array whose length is at start.
func (d *jsonTranscoder) end(out []byte, start int32) []byte {
	d.depth--
	out = append(out, 0)
	return bsoncore.UpdateLength(out, start, int32(len(out))-start)
}

// key appends the object key at d.pos as a BSON C string.
func (d *jsonTranscoder) key(out []byte) ([]byte, error) {
	at, from := d.pos, len(out)
	out, err := d.unquote(out)
	if err != nil {
		return out, err
	}
	if len(out) > from && out[from] == '$' {
		d.ext = true
	}
	for _, c := range out[from:] {
		if c == 0 {
			d.pos = at
			return out, d.fail("a key holds U+0000")
		}
	}
	return append(out, 0), nil
}

// str appends the string at d.pos as a BSON string.
func (d *jsonTranscoder) str(out []byte) ([]byte, error) {
	start, out := bsoncore.ReserveLength(out)
	out, err := d.unquote(out)
	if err != nil {
		return out, err
	}
	out = append(out, 0)
	return bsoncore.UpdateLength(out, start, int32(len(out))-start-4), nil
}

// unquote appends the unescaped text of the string at d.pos.
func (d *jsonTranscoder) unquote(out []byte) ([]byte, error) {
	in, pos := d.in, d.pos+1 // after the "
	for {
		// Copy the run of plain bytes up to the next quote, backslash or
		// control character.
		run := pos
		for pos+8 <= len(in) && !special8(binary.LittleEndian.Uint64(in[pos:])) {
			pos += 8
		}
		for pos < len(in) {
			c := in[pos]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			pos++
		}
		out = append(out, in[run:pos]...)
		d.pos = pos
		if pos >= len(in) {
			return out, d.fail("")
		}
		switch in[pos] {
		case '"':
			d.pos = pos + 1
			return out, nil
		case '\\':
			var err error
			if out, err = d.escape(out); err != nil {
				return out, err
			}
			pos = d.pos
		default:
			return out, d.fail("control character in a string")
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special8 reports whether one of the 8 bytes of x ends a run of plain
// string bytes: a quote, a backslash or a control character. (A byte
// below n sets its high bit in (x - n·ones) &^ x; a byte equal to c is a
// zero byte of x ^ c·ones.)
func special8(x uint64) bool {
	q, bs := x^('"'*ones), x^('\\'*ones)
	return ((x-0x20*ones)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0
}

// escape appends the character of the escape sequence at d.pos.
func (d *jsonTranscoder) escape(out []byte) ([]byte, error) {
	if d.pos+1 >= len(d.in) {
		d.pos = len(d.in)
		return out, d.fail("")
	}
	c := d.in[d.pos+1]
	switch c {
	case '"', '\\', '/':
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		r, err := d.hex4()
		if err != nil {
			return out, err
		}
		if !utf16.IsSurrogate(r) {
			return utf8.AppendRune(out, r), nil
		}
		// A surrogate pairs with a \u escape right after it; else it
		// stands alone and becomes U+FFFD, and so does the second of a pair
		// that does not decode (bson.UnmarshalExtJSON does the same).
		if d.pos+1 >= len(d.in) || d.in[d.pos] != '\\' || d.in[d.pos+1] != 'u' {
			return utf8.AppendRune(out, utf8.RuneError), nil
		}
		r2, err := d.hex4()
		if err != nil {
			return out, err
		}
		if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
			return utf8.AppendRune(out, p), nil
		}
		return utf8.AppendRune(utf8.AppendRune(out, utf8.RuneError), r2), nil
	default:
		d.pos++
		return out, d.fail("invalid escape")
	}
	d.pos += 2
	return append(out, c), nil
}

// hex4 reads the \uXXXX escape at d.pos.
func (d *jsonTranscoder) hex4() (rune, error) {
	if len(d.in)-d.pos < 6 {
		d.pos = len(d.in)
		return 0, d.fail("")
	}
	var r rune
	for i := d.pos + 2; i < d.pos+6; i++ {
		c := d.in[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			d.pos = i
			return 0, d.fail("invalid \\u escape")
		}
		r = r<<4 | rune(c)
	}
	d.pos += 6
	return r, nil
}

// number appends the number at d.pos: an int32 or int64 when it is an
// integer that fits, else a double.
func (d *jsonTranscoder) number(out []byte) ([]byte, bson.Type, error) {
	start := d.pos
	if d.in[d.pos] == '-' {
		d.pos++
	}
	digits := d.pos
	if d.pos < len(d.in) && d.in[d.pos] == '0' {
		d.pos++
	} else if !d.digits() {
		return out, 0, d.fail("invalid number")
	}
	integer := true
	if d.pos < len(d.in) && d.in[d.pos] == '.' {
		d.pos++
		if !d.digits() {
			return out, 0, d.fail("invalid number")
		}
		integer = false
	}
	if d.pos < len(d.in) && (d.in[d.pos] == 'e' || d.in[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.in) && (d.in[d.pos] == '+' || d.in[d.pos] == '-') {
			d.pos++
		}
		if !d.digits() {
			return out, 0, d.fail("invalid number")
		}
		integer = false
	}
	text := d.in[start:d.pos]
	if integer && d.pos-digits <= 18 {
		// At most 18 digits: fits an int64 without overflow.
		var v int64
		for _, c := range d.in[digits:d.pos] {
			v = v*10 + int64(c-'0')
		}
		if start != digits {
			v = -v
		}
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return bsoncore.AppendInt32(out, int32(v)), bson.TypeInt32, nil
		}
		return bsoncore.AppendInt64(out, v), bson.TypeInt64, nil
	}
	if integer {
		if v, err := strconv.ParseInt(string(text), 10, 64); err == nil {
			return bsoncore.AppendInt64(out, v), bson.TypeInt64, nil // more than 18 digits: never an int32
		}
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		d.pos = start
		return out, 0, &syntaxError{msg: fmt.Sprintf("number %s out of range", text), off: start}
	}
	return bsoncore.AppendDouble(out, f), bson.TypeDouble, nil
}

// digits skips one or more decimal digits, reporting whether there was
// one.
func (d *jsonTranscoder) digits() bool {
	from := d.pos
	for d.pos < len(d.in) && d.in[d.pos] >= '0' && d.in[d.pos] <= '9' {
		d.pos++
	}
	return d.pos > from
}
