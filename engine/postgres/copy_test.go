package postgres

import (
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestAppendCopyValue(t *testing.T) {
	ts := time.Date(2026, 11, 21, 12, 30, 45, 123456000, time.UTC)
	for _, tc := range []struct {
		v    any
		want string
	}{
		{nil, `\N`},
		{"plain", "plain"},
		{"a\tb\nc\rd\\e", `a\tb\nc\rd\\e`},
		{`\N`, `\\N`},
		{"ünï\x01", "ünï\x01"}, // other control bytes are data
		{[]byte{0x00, 0xff, 0x10}, `\\x00ff10`},
		{42, "42"}, {int64(-7), "-7"}, {int32(5), "5"}, {int16(-3), "-3"}, {uint32(9), "9"}, {uint64(1 << 63), "9223372036854775808"},
		{1.5, "1.5"}, {float32(0.25), "0.25"}, {math.NaN(), "NaN"}, {math.Inf(-1), "-Infinity"},
		{true, "t"}, {false, "f"},
		{ts, "2026-11-21 12:30:45.123456Z"},
	} {
		got, err := appendCopyValue(nil, tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("appendCopyValue(%#v) = %q, %v; want %q", tc.v, got, err, tc.want)
		}
	}
	if _, err := appendCopyValue(nil, struct{}{}); err == nil {
		t.Error("an unsupported type was accepted")
	}
}

// needsCopyEscape's word-at-a-time scan agrees with a byte-by-byte one.
func TestNeedsCopyEscape(t *testing.T) {
	naive := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] == '\\' {
				return true
			}
		}
		return false
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abc019-~ \x7f\x80\xff\\\t\n\r\x1f\x20[]]")
	for i := 0; i < 200000; i++ {
		b := make([]byte, r.IntN(40))
		for j := range b {
			if r.IntN(8) == 0 {
				b[j] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[j] = byte('0' + r.IntN(10))
			}
		}
		if got, want := needsCopyEscape(string(b)), naive(string(b)); got != want {
			t.Fatalf("needsCopyEscape(%q) = %v, want %v", b, got, want)
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

func TestCopyTextStream(t *testing.T) {
	src := &sliceSource{rows: [][]any{{int64(1), "a"}, {int64(2), nil}, {int64(3), "x\ty"}}}
	b, err := io.ReadAll(newCopyText(src, 2))
	if err != nil {
		t.Fatal(err)
	}
	if want := "1\ta\n2\t\\N\n3\tx\\ty\n"; string(b) != want {
		t.Errorf("stream = %q, want %q", b, want)
	}
	_, err = io.ReadAll(newCopyText(&sliceSource{rows: [][]any{{1}}}, 2))
	if err == nil || !strings.Contains(err.Error(), "1 values for 2 columns") {
		t.Errorf("short row: %v", err)
	}
}

func BenchmarkCopyText(b *testing.B) {
	c := strings.Repeat("01234567890-", 10)[:119]
	pad := c[:59]
	row := []any{int64(123456), int64(250000), c, pad}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = buf[:0]
		for _, v := range row {
			buf, _ = appendCopyValue(buf, v)
		}
	}
}
