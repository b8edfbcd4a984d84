package mongo

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/workload/docolap"
)

// extJSONDocument is how a JSON column's value was converted before the
// transcoder (bson.UnmarshalExtJSON of the value wrapped in {"v": …}): the
// oracle the transcoder's BSON is compared with.
func extJSONDocument(data []byte) (bson.RawValue, error) {
	var wrap struct {
		V bson.RawValue `bson:"v"`
	}
	w := make([]byte, 0, len(data)+6)
	w = append(append(append(w, `{"v":`...), data...), '}')
	if err := bson.UnmarshalExtJSON(w, false, &wrap); err != nil {
		return bson.RawValue{}, err
	}
	return wrap.V, nil
}

// githubEvent is a representative JSON column value: a 2.5 KB GitHub
// event with nested objects, arrays, escaped strings, integers of both
// widths, floats, booleans and nulls.
const githubEvent = `{
  "id": "26170203746",
  "type": "PushEvent",
  "actor": {"id": 41898282, "login": "github-actions[bot]", "display_login": "github-actions", "gravatar_id": "", "url": "https://api.github.com/users/github-actions[bot]", "avatar_url": "https://avatars.githubusercontent.com/u/41898282?"},
  "repo": {"id": 563421984, "name": "octo-org/octo-repo", "url": "https://api.github.com/repos/octo-org/octo-repo"},
  "payload": {
    "repository_id": 563421984, "push_id": 12058473921, "size": 3, "distinct_size": 2,
    "ref": "refs/heads/main", "head": "7a8f2c1e9b4d3a6f5e0c8b7a9d2e1f4c3b6a5d8e", "before": "1f2e3d4c5b6a79881726354453627180a9b8c7d6",
    "commits": [
      {"sha": "7a8f2c1e9b4d3a6f5e0c8b7a9d2e1f4c3b6a5d8e", "author": {"email": "dev@example.com", "name": "Zoë \"zed\" Müller"}, "message": "Fix the parser:\n\t* handle \\u escapes\n\t* keep key order\r\nSigned-off-by: Zoë <dev@example.com>", "distinct": true, "url": "https://api.github.com/repos/octo-org/octo-repo/commits/7a8f2c1e"},
      {"sha": "3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d", "author": {"email": "bot@example.com", "name": "release bot \u2014 \ud83e\udd16"}, "message": "chore(deps): bump golang.org/x/net from 0.17.0 to 0.23.0 \u00e9\u00e8 \/ path", "distinct": false, "url": "https://api.github.com/repos/octo-org/octo-repo/commits/3c4d5e6f"},
      {"sha": "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d", "author": {"email": "x@example.org", "name": "日本語の名前"}, "message": "Merge pull request #4211 from feature/\"quoted\"-branch", "distinct": true, "url": "https://api.github.com/repos/octo-org/octo-repo/commits/9e8d7c6b"}
    ]
  },
  "public": true,
  "created_at": "2023-01-01T15:04:05Z",
  "org": {"id": 9919, "login": "octo-org", "gravatar_id": null, "url": "https://api.github.com/orgs/octo-org", "avatar_url": "https://avatars.githubusercontent.com/u/9919?"},
  "metrics": {"score": 0.8125, "weight": -1.5e-3, "ratio": 12.0, "big": 9007199254740993, "neg": -2147483649, "small": -2147483648, "zero": 0, "negzero": -0, "exp": 6.02E+23, "flags": [true, false, null, 1, -1, 2147483647, 2147483648, 1.5, "s", [], {}]},
  "labels": ["bug", "good first issue", "help wanted", "priority: high", "area/engine", "tab\there", "nl\nthere", "back\\slash"],
  "reactions": {"+1": 3, "-1": 0, "laugh": 1, "hooray": 2, "confused": 0, "heart": 5, "rocket": 1, "eyes": 0, "total_count": 12},
  "assignees": [{"login": "alice", "id": 101, "site_admin": false}, {"login": "bob", "id": 102, "site_admin": true}],
  "milestone": null
}`

// BenchmarkJSONColumn converts githubEvent, and the docolap workload's
// events (MB/s from their mean size), the way BulkLoad did (extjson:
// bson.UnmarshalExtJSON) and does (transcoder). docs/cpu-s
// divides by the CPU time the process used instead of the elapsed time,
// which is what one core does when others compete for the machine (run
// with -cpu 1).
func BenchmarkJSONColumn(b *testing.B) {
	data := []byte(githubEvent)
	if !json.Valid(data) {
		b.Fatal("githubEvent is not valid JSON")
	}
	// The docolap workload's events, 1,000 of them in turn.
	g := docolap.NewGenerator(1, 1000000)
	events := make([][]byte, 1000)
	var size int64
	for i := range events {
		events[i] = g.AppendEvent(nil, int64(i))
		size += int64(len(events[i]))
	}
	var tc jsonTranscoder
	var i int
	for _, c := range []struct {
		name    string
		size    int64
		convert func() error
	}{
		{"extjson", int64(len(data)), func() error { _, err := extJSONDocument(data); return err }},
		{"transcoder", int64(len(data)), func() error { _, err := tc.document(data); return err }},
		{"docolap/extjson", size / int64(len(events)), func() error {
			i++
			_, err := extJSONDocument(events[i%len(events)])
			return err
		}},
		{"docolap/transcoder", size / int64(len(events)), func() error {
			i++
			_, err := tc.document(events[i%len(events)])
			return err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(c.size)
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if err := c.convert(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(b.N)/cpu.Seconds(), "docs/cpu-s")
			}
		})
	}
}

// sameAsExtJSON checks that the transcoder's BSON for data is the old
// path's byte for byte, or that both reject it; invalid JSON must be
// rejected whatever the old path did.
func sameAsExtJSON(t *testing.T, tc *jsonTranscoder, data []byte) {
	t.Helper()
	got, err := tc.document(data)
	if !json.Valid(data) {
		if err == nil {
			t.Errorf("invalid JSON %q accepted as %v", data, got)
		}
		return
	}
	want, wantErr := extJSONDocument(data)
	if (err != nil) != (wantErr != nil) {
		t.Errorf("%q: error %v, the old path's %v", data, err, wantErr)
		return
	}
	if err != nil {
		return
	}
	rv := got.(bson.RawValue)
	if rv.Type != want.Type || !bytes.Equal(rv.Value, want.Value) {
		t.Errorf("%q:\n got %v %x\nwant %v %x", data, rv.Type, rv.Value, want.Type, want.Value)
	}
}

func TestTranscoderMatchesExtJSON(t *testing.T) {
	var tc jsonTranscoder
	for _, s := range []string{
		githubEvent,
		`{}`, `[]`, `{"a":{}}`, `[[],{}]`, ` {"a" : [ 1 , 2 ] } `, "\t\r\n[\n1\n]\n",
		`0`, `-0`, `1`, `-1`, `2147483647`, `2147483648`, `-2147483648`, `-2147483649`,
		`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`,
		`999999999999999999`, `1000000000000000000`, `-999999999999999999`, `123456789012345678901234567890`,
		`0.0`, `-0.0`, `1.5`, `1e2`, `1E2`, `1e+2`, `1e-2`, `-1.25e-300`, `1e400`, `-1e400`, `1e-400`, `4.9e-324`,
		`0.1`, `3.141592653589793238462643383279`, `100000000000000000000000`, `1.7976931348623157e308`,
		`true`, `false`, `null`, `"x"`, `""`,
		`{"a":1,"a":2}`, `{"b":1,"a":2,"c":{"z":0,"y":1}}`, `{"":1}`, `{"a.b":1}`,
		`"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\u4e2d\uffff\u0000"`, `"\ud83d\ude00"`, `"\uD83D\uDE00"`,
		`"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\n"`, `"\ud83d\ud83d"`, `"\ud83d\u0041"`,
		`"\ude00\ud83d\ude00"`, `"\ud83d\ud83d\ude00"`, `"\ud83d\\"`, `{"\ud83d":1}`, `{"\u00e9t\u00e9":"\u00e9"}`,
		`"Zoë 日本 🤖"`, "\"\xff\xfe\"", "\"a\xc3\"", `{"\u0000":1}`, `{"a\u0000b":1}`,
		`{"$oid":"5f1d7c5e2b3c4d5e6f708192"}`, `{"a":{"$date":"2023-01-01T00:00:00Z"}}`, `{"\u0024numberLong":"5"}`,
		`{"a":1,"$b":2}`, `[{"$numberInt":"7"}]`, `{"$x":1}`,
		strings.Repeat(`{"a":`, 150) + `1` + strings.Repeat(`}`, 150),
		strings.Repeat(`{"a":`, 199) + `1` + strings.Repeat(`}`, 199),
		strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200),
		strings.Repeat(`[`, 199) + `1` + strings.Repeat(`]`, 199),
		strings.Repeat(`{"a":[`, 99) + `{}` + strings.Repeat(`]}`, 99),
	} {
		sameAsExtJSON(t, &tc, []byte(s))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b []byte
		b = genJSON(r, b, 0)
		sameAsExtJSON(t, &tc, b)
	}
}

// TestTranscoderRejectsInvalidJSON: every syntax error is an error,
// including text the old path let through (text after the value, raw
// control characters, bad \u escapes).
func TestTranscoderRejectsInvalidJSON(t *testing.T) {
	var tc jsonTranscoder
	for _, s := range []string{
		``, ` `, `{`, `}`, `[`, `]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a" 1}`, `{a:1}`,
		`{'a':1}`, `[1 2]`, `{"a":1 "b":2}`, `1,"w":2`, `{"a":1}}`, `{"a":1},{"b":2}`, `[1]]`, `1 2`,
		`01`, `-`, `-01`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `1.5.5`, `NaN`, `Infinity`, `-Infinity`,
		`tru`, `truex`, `nul`, `nulll`, `fals`, `True`, `"abc`, `"\"`, `"\x"`, `"\u12"`, `"\uzzzz"`,
		`"\ud83d\uzzzz"`, "\"a\nb\"", "\"\x01\"", `[1}`, `{"a":1]`,
	} {
		if v, err := tc.document(s); err == nil {
			t.Errorf("%q accepted as %v", s, v)
		} else if !strings.HasPrefix(err.Error(), "not a JSON document") {
			t.Errorf("%q: error %q", s, err)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := genJSON(r, nil, 0)
		// Corrupt one byte or cut the text short.
		if r.IntN(2) == 0 {
			b = b[:r.IntN(len(b))]
		} else {
			const bad = "{}[],:\"\\ -0.eE+a\x01"
			b[r.IntN(len(b))] = bad[r.IntN(len(bad))]
		}
		sameAsExtJSON(t, &tc, b)
	}
}

// TestTranscoderLeavesExtendedJSON: valid values Extended JSON may read
// as typed values are left to bson.UnmarshalExtJSON; invalid ones are
// errors all the same.
func TestTranscoderLeavesExtendedJSON(t *testing.T) {
	var tc jsonTranscoder
	for _, s := range []string{
		`{"$oid":"5f1d7c5e2b3c4d5e6f708192"}`, `[{"a":{"\u0024date":1}}]`, `{"a":1,"$b":2}`, `{"$x":1,"a":[1,2]}`,
	} {
		if _, _, err := tc.transcode([]byte(s)); !errors.Is(err, errExtJSON) {
			t.Errorf("transcode(%s) error = %v, want errExtJSON", s, err)
		}
	}
	for _, s := range []string{`{"$oid":"5f1d7c5e2b3c4d5e6f708192"`, `{"$x":"\u4}2D"}`, `{"$x":1,"a":[1,2}`, `{"$x":1} 2`} {
		if _, _, err := tc.transcode([]byte(s)); err == nil || errors.Is(err, errExtJSON) {
			t.Errorf("transcode(%s) error = %v, want a syntax error", s, err)
		}
	}
	v, err := tc.document(`{"a":{"$oid":"5f1d7c5e2b3c4d5e6f708192"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if id := v.(bson.RawValue).Document().Lookup("a"); id.Type != bson.TypeObjectID {
		t.Errorf("$oid read as %v, want an ObjectId", id.Type)
	}
}

// TestTranscoderDepth: nesting up to 199 levels, more than MongoDB
// stores, converts; deeper is an error, not a deep recursion.
func TestTranscoderDepth(t *testing.T) {
	var tc jsonTranscoder
	for _, n := range []int{199, 200, 1e6} {
		for _, s := range []string{
			strings.Repeat("[", n) + strings.Repeat("]", n),
			strings.Repeat(`{"a":[`, n/2) + strings.Repeat("[]", n%2) + strings.Repeat(`]}`, n/2),
		} {
			_, err := tc.document(s)
			if want := n <= 199; (err == nil) != want {
				t.Errorf("%d levels: error %v", n, err)
			} else if !want && !strings.Contains(err.Error(), "nested deeper than 199 levels") {
				t.Errorf("%d levels: error %q", n, err)
			}
		}
	}
}

// TestTranscoderDocolapEvents: the generated GitHub events of the
// docolap workload transcode to the BSON its generator writes for them
// (which its own test pins to bson.UnmarshalExtJSON's).
func TestTranscoderDocolapEvents(t *testing.T) {
	g := docolap.NewGenerator(9, 1000000)
	var tc jsonTranscoder
	for i := range int64(20000) {
		js := g.AppendEvent(nil, i)
		v, err := tc.document(json.RawMessage(js))
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if got, want := v.(bson.RawValue), g.AppendEventBSON(nil, i); got.Type != bson.TypeEmbeddedDocument || !bytes.Equal(got.Value, want) {
			t.Fatalf("event %d: %s\n got %v\nwant %v", i, js, got, bson.Raw(want))
		}
		if i%20 == 0 {
			sameAsExtJSON(t, &tc, js)
		}
	}
}

func TestSpecial8(t *testing.T) {
	naive := func(x uint64) bool {
		for range 8 {
			if c := byte(x); c == '"' || c == '\\' || c < 0x20 {
				return true
			}
			x >>= 8
		}
		return false
	}
	check := func(x uint64) {
		if got := special8(x); got != naive(x) {
			t.Fatalf("special8(%#016x) = %v", x, got)
		}
	}
	for c := range 256 {
		for i := range 8 {
			for _, fill := range []uint64{'a' * ones, 0xff * ones, 0x80 * ones, 0x20 * ones, 0x21 * ones, '#' * ones, ']' * ones} {
				check(fill&^(0xff<<(8*i)) | uint64(c)<<(8*i))
			}
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 1_000_000 {
		check(r.Uint64())
		// Bytes near the special ones.
		var x uint64
		for i := range 8 {
			x |= uint64("\x00\x1f\x20\x21\"#\\]\x7f\x80\xffa"[r.IntN(12)]) << (8 * i)
		}
		check(x)
	}
}

func TestTranscoderErrorOffset(t *testing.T) {
	var tc jsonTranscoder
	_, err := tc.document(`{"a": [1, 2, x]}`)
	var se *syntaxError
	if !errors.As(err, &se) || se.off != 13 {
		t.Fatalf("error = %v, want a syntax error at byte 13", err)
	}
}

// genJSON appends a random JSON value, with random whitespace, escapes,
// unicode, duplicate keys and numbers around the int32/int64 bounds.
func genJSON(r *rand.Rand, b []byte, depth int) []byte {
	ws := func() {
		for r.IntN(4) == 0 {
			b = append(b, " \t\r\n"[r.IntN(4)])
		}
	}
	ws()
	k := r.IntN(10)
	if depth == 0 && r.IntN(5) > 0 {
		k = r.IntN(2) // mostly documents and arrays at the top
	}
	if depth > 6 {
		k = 2 + r.IntN(8)
	}
	switch k {
	case 0:
		b = append(b, '{')
		n := r.IntN(6)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			ws()
			b = genString(r, b, true)
			ws()
			b = append(b, ':')
			b = genJSON(r, b, depth+1)
		}
		ws()
		b = append(b, '}')
	case 1:
		b = append(b, '[')
		n := r.IntN(6)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = genJSON(r, b, depth+1)
		}
		ws()
		b = append(b, ']')
	case 2, 3:
		b = genString(r, b, false)
	case 4, 5, 6:
		b = genNumber(r, b)
	case 7:
		b = append(b, "true"...)
	case 8:
		b = append(b, "false"...)
	default:
		b = append(b, "null"...)
	}
	ws()
	return b
}

func genString(r *rand.Rand, b []byte, key bool) []byte {
	b = append(b, '"')
	if key && r.IntN(3) == 0 {
		// Few distinct keys, so that objects repeat some.
		b = append(b, "abc"[r.IntN(3)])
		return append(b, '"')
	}
	pieces := []string{"a", "Z", "key", " ", "é", "日本", "🤖", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
		`\u0041`, `\u00e9`, `\u4E2D`, `\ud83e\udd16`, `\ud83e`, `\udd16`, `\ud83e\u0041`, `\u0001`, `\u001f`, "\x7f", "\xff", "$"}
	for n := r.IntN(20); n > 0; n-- {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return append(b, '"')
}

func genNumber(r *rand.Rand, b []byte) []byte {
	switch r.IntN(8) {
	case 0:
		return strconv.AppendInt(b, r.Int64N(2000)-1000, 10)
	case 1:
		return strconv.AppendInt(b, int64(r.Int32()), 10)
	case 2:
		bound := []int64{1 << 31, 1<<31 - 1, -1 << 31, -1<<31 - 1, 1 << 62, -1 << 62}[r.IntN(6)]
		return strconv.AppendInt(b, bound+r.Int64N(5)-2, 10)
	case 3:
		return strconv.AppendInt(b, int64(r.Uint64()), 10)
	case 4:
		// Integers around and beyond the int64 range.
		s := []string{"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
			"18446744073709551616", "99999999999999999999999999", "-0", "0"}[r.IntN(8)]
		return append(b, s...)
	case 5:
		return strconv.AppendFloat(b, r.NormFloat64()*1e6, 'f', -1, 64)
	case 6:
		return strconv.AppendFloat(b, r.NormFloat64()*1e100, "eEg"[r.IntN(3)], -1, 64)
	default:
		b = strconv.AppendInt(b, r.Int64N(100), 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, r.Int64N(100000), 10)
		if r.IntN(2) == 0 {
			b = append(b, "eE"[r.IntN(2)])
			b = append(b, []string{"", "+", "-"}[r.IntN(3)]...)
			b = strconv.AppendInt(b, r.Int64N(400), 10)
		}
		return b
	}
}
