//go:build k8s

package k8stest

import "testing"

func TestExpand(t *testing.T) {
	vars := map[string]string{"A": "alpha", "B": "$(A)", "EMPTY": ""}
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"$(A)", "alpha"},
		{"--shard $(A)/3", "--shard alpha/3"},
		{"$(A)$(A)", "alphaalpha"},
		{"$(B)", "$(A)"}, // values are not expanded again
		{"$(EMPTY)x", "x"},
		{"$(UNDEFINED)", "$(UNDEFINED)"},
		{"$$(A)", "$(A)"},
		{"$$$(A)", "$alpha"},
		{"$$$$", "$$"},
		{"$", "$"},
		{"a$", "a$"},
		{"$x", "$x"},
		{"$(A", "$(A"},
		{"$()", "$()"},
		{"$($(A)", "$($(A)"}, // the name is "$(A"
		{"x$(A)y$$z", "xalphay$z"},
	} {
		if got := Expand(tc.in, mapLookup(vars)); got != tc.want {
			t.Errorf("Expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
