package docolap

import "strconv"

// enc writes one document into a reused buffer, by hand: compact JSON,
// or, with bson set, the BSON that MongoDB stores for that JSON (integers
// as int32 where they fit and int64 otherwise, as a relaxed extended JSON
// parser makes them). The strings it is given are made of letters, digits
// and URL punctuation only, so nothing needs escaping; line breaks go
// through newline.
//
// JSON: first is set right after an opening brace or bracket, where the
// next member or element takes no comma. BSON: a member's type byte comes
// before its name, so key only remembers the name until the value is
// written; frames hold the open documents' (at most 16 deep) and arrays' starts (their
// lengths are written when they end) and the arrays' next index.
type enc struct {
	b      []byte
	first  bool
	bson   bool
	name   string
	frames [16]frame
	depth  int
}

type frame struct {
	start int
	array bool
	next  int
}

// BSON element types.
const (
	bsonString   = 0x02
	bsonDocument = 0x03
	bsonArray    = 0x04
	bsonBool     = 0x08
	bsonNull     = 0x0a
	bsonInt32    = 0x10
	bsonInt64    = 0x12
)

// head writes a BSON element's type and name: the pending key's, or in
// an array the element's index.
func (e *enc) head(t byte) {
	e.b = append(e.b, t)
	if n := e.depth; n > 0 && e.frames[n-1].array {
		e.b = strconv.AppendInt(e.b, int64(e.frames[n-1].next), 10)
		e.frames[n-1].next++
	} else {
		e.b = append(e.b, e.name...)
	}
	e.b = append(e.b, 0)
}

// open starts a BSON document or array: its length, written by close.
func (e *enc) open(array bool) {
	e.frames[e.depth] = frame{start: len(e.b), array: array}
	e.depth++
	e.b = append(e.b, 0, 0, 0, 0)
}

func (e *enc) close() {
	e.b = append(e.b, 0)
	e.depth--
	f := e.frames[e.depth]
	putInt32(e.b[f.start:], len(e.b)-f.start)
}

func putInt32(b []byte, v int) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// obj starts an object: the document itself, or the value of the member
// or element being written.
func (e *enc) obj() {
	if e.bson {
		if e.depth > 0 {
			e.head(bsonDocument)
		}
		e.open(false)
		return
	}
	e.b = append(e.b, '{')
	e.first = true
}

func (e *enc) end() {
	if e.bson {
		e.close()
		return
	}
	e.b = append(e.b, '}')
	e.first = false
}

func (e *enc) arr() {
	if e.bson {
		e.head(bsonArray)
		e.open(true)
		return
	}
	e.b = append(e.b, '[')
	e.first = true
}

func (e *enc) endArr() {
	if e.bson {
		e.close()
		return
	}
	e.b = append(e.b, ']')
	e.first = false
}

// elem starts an array element.
func (e *enc) elem() {
	if e.bson {
		return
	}
	if !e.first {
		e.b = append(e.b, ',')
	}
	e.first = false
}

// key starts member k.
func (e *enc) key(k string) {
	if e.bson {
		e.name = k
		return
	}
	e.elem()
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}

// beginStr starts member k, a string that the caller appends to e.b and
// endStr ends.
func (e *enc) beginStr(k string) int {
	e.key(k)
	if e.bson {
		e.head(bsonString)
		at := len(e.b)
		e.b = append(e.b, 0, 0, 0, 0)
		return at
	}
	e.b = append(e.b, '"')
	return 0
}

func (e *enc) endStr(at int) {
	if e.bson {
		e.b = append(e.b, 0)
		putInt32(e.b[at:], len(e.b)-at-4)
		return
	}
	e.b = append(e.b, '"')
}

// newline appends a line break inside a string: the escape \n (\r\n
// with crlf) in JSON, the characters themselves in BSON.
func (e *enc) newline(crlf bool) {
	switch {
	case e.bson && crlf:
		e.b = append(e.b, '\r', '\n')
	case e.bson:
		e.b = append(e.b, '\n')
	case crlf:
		e.b = append(e.b, `\r\n`...)
	default:
		e.b = append(e.b, `\n`...)
	}
}

// str is member k with the string value made of parts.
func (e *enc) str(k string, parts ...string) {
	at := e.beginStr(k)
	for _, p := range parts {
		e.b = append(e.b, p...)
	}
	e.endStr(at)
}

func (e *enc) int(k string, v int64) {
	e.key(k)
	if !e.bson {
		e.b = strconv.AppendInt(e.b, v, 10)
		return
	}
	if v == int64(int32(v)) {
		e.head(bsonInt32)
		e.b = append(e.b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		return
	}
	e.head(bsonInt64)
	e.b = append(e.b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

func (e *enc) bool(k string, v bool) {
	e.key(k)
	if e.bson {
		e.head(bsonBool)
		if v {
			e.b = append(e.b, 1)
		} else {
			e.b = append(e.b, 0)
		}
		return
	}
	e.b = strconv.AppendBool(e.b, v)
}

func (e *enc) null(k string) {
	e.key(k)
	if e.bson {
		e.head(bsonNull)
		return
	}
	e.b = append(e.b, "null"...)
}

// time is member k, the time t (Unix seconds) as "2015-01-01T15:00:00Z".
func (e *enc) time(k string, t int64) {
	at := e.beginStr(k)
	e.b = appendTime(e.b, t)
	e.endStr(at)
}

// appendTime appends t (Unix seconds, after 1970) as RFC 3339 in UTC,
// whole seconds: the civil date from the day number (H. Hinnant's
// days-to-civil), without package time.
func appendTime(b []byte, t int64) []byte {
	days, s := t/secondsPerDay, t%secondsPerDay
	z := days + 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	b = strconv.AppendInt(b, y, 10)
	b = append(b, '-')
	b = two(b, m)
	b = append(b, '-')
	b = two(b, d)
	b = append(b, 'T')
	b = two(b, s/3600)
	b = append(b, ':')
	b = two(b, s/60%60)
	b = append(b, ':')
	b = two(b, s%60)
	return append(b, 'Z')
}

func two(b []byte, v int64) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

const hexDigits = "0123456789abcdef"

// sha is a 40-digit hexadecimal commit id.
type sha [40]byte

func (r *rng) sha() sha {
	var s sha
	for i := 0; i < 40; i += 16 {
		x := r.next()
		for j := i; j < i+16 && j < 40; j++ {
			s[j] = hexDigits[x&15]
			x >>= 4
		}
	}
	return s
}

func (e *enc) sha(k string, s *sha) {
	at := e.beginStr(k)
	e.b = append(e.b, s[:]...)
	e.endStr(at)
}

// text is member k, a text of n words (n ≥ 1) and then paragraphs more
// paragraphs of n words each.
func (e *enc) text(k string, r *rng, n, paragraphs int) {
	at := e.beginStr(k)
	e.words(r, n)
	for range paragraphs {
		e.newline(true)
		e.newline(true)
		e.words(r, n)
	}
	e.endStr(at)
}

func (e *enc) words(r *rng, n int) {
	var x uint64
	for i := 0; i < n; i++ {
		if i > 0 {
			e.b = append(e.b, ' ')
		}
		if i%10 == 0 {
			x = r.next()
		}
		e.b = append(e.b, words[x&63]...)
		x >>= 6
	}
}
