package jsondoc_test

import (
	"testing"

	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// TestFormat checks how values read from the engines are written: alike
// whatever type the engine's driver returns.
func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		k    jsondoc.Kind
		v    any
		want string
	}{
		{jsondoc.Count, int64(42), "42"}, {jsondoc.Count, int32(42), "42"}, {jsondoc.Count, "42", "42"}, {jsondoc.Count, float64(42), "42"},
		{jsondoc.Average, float64(10) / 3, "3.3333"}, {jsondoc.Average, []byte("3.50000"), "3.5000"},
		{jsondoc.Text, []byte("a/b"), "a/b"}, {jsondoc.Group, nil, ""}, {jsondoc.Group, "app.bsky.feed.like", "app.bsky.feed.like"},
		{jsondoc.Micros, int64(1732206349000167), "2024-11-21 16:25:49.000167"}, {jsondoc.Micros, []byte("1732206349000000"), "2024-11-21 16:25:49.000000"},
		{jsondoc.Millis, int64(813006959), "813006.959"}, {jsondoc.Millis, int64(5), "0.005"}, {jsondoc.Millis, float64(1000), "1.000"},
	} {
		got, err := jsondoc.Format(tc.k, tc.v)
		if err != nil || got != tc.want {
			t.Errorf("Format(%v, %#v) = %q, %v; want %q", tc.k, tc.v, got, err, tc.want)
		}
	}
	for _, k := range []jsondoc.Kind{jsondoc.Text, jsondoc.Count, jsondoc.Micros} {
		if _, err := jsondoc.Format(k, nil); err == nil {
			t.Errorf("NULL formatted as kind %v", k)
		}
	}
}
