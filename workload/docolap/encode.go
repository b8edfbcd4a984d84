package docolap

import "strconv"

// enc writes compact JSON into a reused buffer, by hand: the strings it
// is given are made of letters, digits and URL punctuation only, so
// nothing needs escaping. first is set right after an opening brace or
// bracket, where the next member or element takes no comma.
type enc struct {
	b     []byte
	first bool
}

func (e *enc) obj() { e.b = append(e.b, '{'); e.first = true }
func (e *enc) end() { e.b = append(e.b, '}'); e.first = false }
func (e *enc) arr() { e.b = append(e.b, '['); e.first = true }
func (e *enc) endArr() {
	e.b = append(e.b, ']')
	e.first = false
}

// elem starts an array element.
func (e *enc) elem() {
	if !e.first {
		e.b = append(e.b, ',')
	}
	e.first = false
}

// key starts member k.
func (e *enc) key(k string) {
	e.elem()
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}

// str is member k with the string value made of parts.
func (e *enc) str(k string, parts ...string) {
	e.key(k)
	e.b = append(e.b, '"')
	for _, p := range parts {
		e.b = append(e.b, p...)
	}
	e.b = append(e.b, '"')
}

func (e *enc) int(k string, v int64) {
	e.key(k)
	e.b = strconv.AppendInt(e.b, v, 10)
}

func (e *enc) bool(k string, v bool) {
	e.key(k)
	e.b = strconv.AppendBool(e.b, v)
}

func (e *enc) null(k string) {
	e.key(k)
	e.b = append(e.b, "null"...)
}

// time is member k, the time t (Unix seconds) as "2015-01-01T15:00:00Z".
func (e *enc) time(k string, t int64) {
	e.key(k)
	e.b = append(e.b, '"')
	e.b = appendTime(e.b, t)
	e.b = append(e.b, '"')
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
	e.key(k)
	e.b = append(e.b, '"')
	e.b = append(e.b, s[:]...)
	e.b = append(e.b, '"')
}

// text is member k, a text of n words (n ≥ 1) and then paragraphs more
// paragraphs of n words each.
func (e *enc) text(k string, r *rng, n, paragraphs int) {
	e.key(k)
	e.b = append(e.b, '"')
	e.words(r, n)
	for range paragraphs {
		e.b = append(e.b, `\r\n\r\n`...)
		e.words(r, n)
	}
	e.b = append(e.b, '"')
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
