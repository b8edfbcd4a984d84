package workload

import "testing"

func TestHashRows(t *testing.T) {
	a := HashRows([][]string{{"x", "1"}, {"y", "2"}})
	if a != HashRows([][]string{{"x", "1"}, {"y", "2"}}) {
		t.Error("the same rows hash differently")
	}
	for _, other := range [][][]string{
		{{"y", "2"}, {"x", "1"}},     // another order
		{{"x\t1"}, {"y", "2"}},       // a tab inside a value is not a separator
		{{"x", "1", ""}, {"y", "2"}}, // an empty value counts
		{{"x", "1"}},
	} {
		if HashRows(other) == a {
			t.Errorf("%q hashes like the rows it differs from", other)
		}
	}
	if len(a) != 32 || HashRows(nil) == a {
		t.Errorf("hash %q: want 32 hex digits", a)
	}
}
