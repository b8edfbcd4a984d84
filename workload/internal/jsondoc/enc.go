package jsondoc

import "strconv"

// Enc writes one document into a reused buffer, by hand: compact JSON,
// or, with BSON set, the BSON that MongoDB stores for that JSON (integers
// as int32 where they fit and int64 otherwise, as a relaxed extended JSON
// parser makes them). The names and strings it is given need no escaping
// (letters, digits, URL punctuation; a generator keeps to them); line
// breaks go through Newline. B is the document so far: a writer appends
// a string's bytes to it between BeginStr and EndStr.
//
// JSON: first is set right after an opening brace or bracket, where the
// next member or element takes no comma. BSON: a member's type byte comes
// before its name, so Key only remembers the name until the value is
// written; frames hold the open documents' (at most 16 deep) and arrays'
// starts (their lengths are written when they end) and the arrays' next
// index.
type Enc struct {
	B      []byte
	BSON   bool
	first  bool
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

// Reset starts a new document appended to dst, as JSON or (bson) BSON.
func (e *Enc) Reset(dst []byte, bson bool) {
	*e = Enc{B: dst, BSON: bson}
}

// head writes a BSON element's type and name: the pending key's, or in
// an array the element's index.
func (e *Enc) head(t byte) {
	e.B = append(e.B, t)
	if n := e.depth; n > 0 && e.frames[n-1].array {
		e.B = strconv.AppendInt(e.B, int64(e.frames[n-1].next), 10)
		e.frames[n-1].next++
	} else {
		e.B = append(e.B, e.name...)
	}
	e.B = append(e.B, 0)
}

// open starts a BSON document or array: its length, written by close.
func (e *Enc) open(array bool) {
	e.frames[e.depth] = frame{start: len(e.B), array: array}
	e.depth++
	e.B = append(e.B, 0, 0, 0, 0)
}

func (e *Enc) close() {
	e.B = append(e.B, 0)
	e.depth--
	f := e.frames[e.depth]
	putInt32(e.B[f.start:], len(e.B)-f.start)
}

func putInt32(b []byte, v int) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// Obj starts an object: the document itself, or the value of the member
// or element being written.
func (e *Enc) Obj() {
	if e.BSON {
		if e.depth > 0 {
			e.head(bsonDocument)
		}
		e.open(false)
		return
	}
	e.B = append(e.B, '{')
	e.first = true
}

// End ends the object Obj started.
func (e *Enc) End() {
	if e.BSON {
		e.close()
		return
	}
	e.B = append(e.B, '}')
	e.first = false
}

// Arr starts an array, the value of the member being written.
func (e *Enc) Arr() {
	if e.BSON {
		e.head(bsonArray)
		e.open(true)
		return
	}
	e.B = append(e.B, '[')
	e.first = true
}

// EndArr ends the array Arr started.
func (e *Enc) EndArr() {
	if e.BSON {
		e.close()
		return
	}
	e.B = append(e.B, ']')
	e.first = false
}

// Elem starts an array element.
func (e *Enc) Elem() {
	if e.BSON {
		return
	}
	if !e.first {
		e.B = append(e.B, ',')
	}
	e.first = false
}

// Key starts member k.
func (e *Enc) Key(k string) {
	if e.BSON {
		e.name = k
		return
	}
	e.Elem()
	e.B = append(e.B, '"')
	e.B = append(e.B, k...)
	e.B = append(e.B, '"', ':')
}

// BeginStr starts member k (k is ignored for an array element), a
// string that the caller appends to B and EndStr, given what BeginStr
// returned, ends.
func (e *Enc) BeginStr(k string) int {
	e.Key(k)
	if e.BSON {
		e.head(bsonString)
		at := len(e.B)
		e.B = append(e.B, 0, 0, 0, 0)
		return at
	}
	e.B = append(e.B, '"')
	return 0
}

// EndStr ends the string BeginStr started at at.
func (e *Enc) EndStr(at int) {
	if e.BSON {
		e.B = append(e.B, 0)
		putInt32(e.B[at:], len(e.B)-at-4)
		return
	}
	e.B = append(e.B, '"')
}

// Newline appends a line break inside a string: the escape \n (\r\n
// with crlf) in JSON, the characters themselves in BSON.
func (e *Enc) Newline(crlf bool) {
	switch {
	case e.BSON && crlf:
		e.B = append(e.B, '\r', '\n')
	case e.BSON:
		e.B = append(e.B, '\n')
	case crlf:
		e.B = append(e.B, `\r\n`...)
	default:
		e.B = append(e.B, `\n`...)
	}
}

// Str is member k with the string value made of parts.
func (e *Enc) Str(k string, parts ...string) {
	at := e.BeginStr(k)
	for _, p := range parts {
		e.B = append(e.B, p...)
	}
	e.EndStr(at)
}

// Int is member k, the integer v.
func (e *Enc) Int(k string, v int64) {
	e.Key(k)
	if !e.BSON {
		e.B = strconv.AppendInt(e.B, v, 10)
		return
	}
	if v == int64(int32(v)) {
		e.head(bsonInt32)
		e.B = append(e.B, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		return
	}
	e.head(bsonInt64)
	e.B = append(e.B, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

// Bool is member k, the boolean v.
func (e *Enc) Bool(k string, v bool) {
	e.Key(k)
	if e.BSON {
		e.head(bsonBool)
		if v {
			e.B = append(e.B, 1)
		} else {
			e.B = append(e.B, 0)
		}
		return
	}
	e.B = strconv.AppendBool(e.B, v)
}

// Null is member k, null.
func (e *Enc) Null(k string) {
	e.Key(k)
	if e.BSON {
		e.head(bsonNull)
		return
	}
	e.B = append(e.B, "null"...)
}

// BeginElemStr starts an array element that is a string, which the
// caller appends to B and EndStr ends.
func (e *Enc) BeginElemStr() int {
	if e.BSON {
		e.head(bsonString)
		at := len(e.B)
		e.B = append(e.B, 0, 0, 0, 0)
		return at
	}
	e.Elem()
	e.B = append(e.B, '"')
	return 0
}

// ElemStr is an array element, the string made of parts.
func (e *Enc) ElemStr(parts ...string) {
	at := e.BeginElemStr()
	for _, p := range parts {
		e.B = append(e.B, p...)
	}
	e.EndStr(at)
}
