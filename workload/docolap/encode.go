package docolap

import (
	"strconv"

	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// enc is the shared document writer, with docolap's members (times,
// SHAs, texts of words) on top.
type enc struct{ jsondoc.Enc }

// time is member k, the time t (Unix seconds) as "2015-01-01T15:00:00Z".
func (e *enc) time(k string, t int64) {
	at := e.BeginStr(k)
	e.B = appendTime(e.B, t)
	e.EndStr(at)
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

func shaOf(r *rng) sha {
	var s sha
	for i := 0; i < 40; i += 16 {
		x := r.Next()
		for j := i; j < i+16 && j < 40; j++ {
			s[j] = hexDigits[x&15]
			x >>= 4
		}
	}
	return s
}

func (e *enc) sha(k string, s *sha) {
	at := e.BeginStr(k)
	e.B = append(e.B, s[:]...)
	e.EndStr(at)
}

// text is member k, a text of n words (n ≥ 1) and then paragraphs more
// paragraphs of n words each.
func (e *enc) text(k string, r *rng, n, paragraphs int) {
	at := e.BeginStr(k)
	e.words(r, n)
	for range paragraphs {
		e.Newline(true)
		e.Newline(true)
		e.words(r, n)
	}
	e.EndStr(at)
}

func (e *enc) words(r *rng, n int) { e.B = jsondoc.AppendWords(e.B, r, &words, n) }
