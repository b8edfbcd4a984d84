//go:build k8s

package k8stest

import (
	"slices"
	"strings"
	"testing"
)

func TestRewritePaths(t *testing.T) {
	ms := []mount{{"/etc/dbarena/extra", "/L2"}, {"/etc/dbarena", "/L1"}, {"/scratch", "/S"}}
	for _, tc := range []struct{ in, want string }{
		{"/etc/dbarena", "/L1"},
		{"/etc/dbarena/", "/L1/"},
		{"/etc/dbarena/plan.yaml", "/L1/plan.yaml"},
		{"/etc/dbarena/extra/x", "/L2/x"},
		{"--plan=/etc/dbarena/plan.yaml", "--plan=/L1/plan.yaml"},
		{"a:/scratch,/scratch/b", "a:/S,/S/b"},
		{"/etc/dbarenax", "/etc/dbarenax"},
		{"/opt/etc/dbarena", "/opt/etc/dbarena"},
		{"x/scratch", "x/scratch"},
		{"no paths", "no paths"},
	} {
		if got := rewritePaths(tc.in, ms); got != tc.want {
			t.Errorf("rewritePaths(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSplitYAML(t *testing.T) {
	docs, err := SplitYAML([]byte("# comment\n---\na: 1\n--- # second\nb: |\n  ---\n  x\n---\n\n---\nc: [1]\n...\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(docs))
	for i, d := range docs {
		got[i] = string(d)
	}
	want := []string{`{"a":1}`, `{"b":"---\nx\n"}`, `{"c":[1]}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("SplitYAML = %q, want %q", got, want)
	}
	if _, err := SplitYAML([]byte("- a\n- b\n")); err == nil {
		t.Error("a list document was accepted")
	}
}

func TestParseIndexes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"", nil},
		{"0", []int{0}},
		{"1,2", []int{1, 2}},
		{"0-2", []int{0, 1, 2}},
		{"0-2,5,7-8", []int{0, 1, 2, 5, 7, 8}},
	} {
		got, err := parseIndexes(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseIndexes(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if _, err := parseIndexes("1-x"); err == nil {
		t.Error("1-x was accepted")
	}
}
