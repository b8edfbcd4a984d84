package lang

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Parameterize remembers its answer per placeholder style: asked with
// another style it answers for that one, and clients asking at once all
// get the right answer.
func TestParameterizeRemembers(t *testing.T) {
	s := mustParse(t, "SELECT :a, ':b', :c, :a;\n", ParseOptions{})
	q := s.Commands[0].Queries[0]
	dollar := func(i int) string { return fmt.Sprintf("$%d", i) }
	question := func(int) string { return "?" }
	for round := 0; round < 2; round++ {
		for _, tc := range []struct {
			ph   func(int) string
			want string
		}{{dollar, "SELECT $1, ':b', $2, $3"}, {question, "SELECT ?, ':b', ?, ?"}, {question, "SELECT ?, ':b', ?, ?"}, {dollar, "SELECT $1, ':b', $2, $3"}} {
			text, names := q.Parameterize(tc.ph)
			if text != tc.want || strings.Join(names, ",") != "a,c,a" {
				t.Errorf("round %d: %q %v, want %q [a c a]", round, text, names, tc.want)
			}
		}
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				ph, want := question, "SELECT ?, ':b', ?, ?"
				if (i+j)%2 == 0 {
					ph, want = dollar, "SELECT $1, ':b', $2, $3"
				}
				if text, _ := q.Parameterize(ph); text != want {
					t.Errorf("%q, want %q", text, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// Interpolate keeps a reference it cannot resolve as written, and
// handles more references than it keeps on its stack.
func TestInterpolateManyAndUnknown(t *testing.T) {
	var src strings.Builder
	src.WriteString("SELECT :nope")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&src, ", :v%d", i)
	}
	src.WriteString(";\n")
	q := mustParse(t, src.String(), ParseOptions{}).Commands[0].Queries[0]
	got := q.Interpolate(func(n string) (string, bool) {
		if n == "nope" {
			return "", false
		}
		return "<" + n + ">", true
	})
	want := "SELECT :nope, <v0>, <v1>, <v2>, <v3>, <v4>, <v5>, <v6>, <v7>, <v8>, <v9>, <v10>, <v11>"
	if got != want {
		t.Errorf("Interpolate = %q\nwant        %q", got, want)
	}
}

// A variable's text follows its value: the text kept for a query that
// uses it is replaced when the variable is set again, by value or text.
func TestVarsTextFollowsSet(t *testing.T) {
	vs := NewVars()
	for _, tc := range []struct {
		set  func()
		want string
	}{
		{func() { vs.Set("x", Int(12345)) }, "12345"},
		{func() { vs.Set("x", Double(0.5)) }, "0.5"},
		{func() { vs.SetText("x", "abc") }, "abc"},
		{func() { vs.Set("x", Bool(true)) }, "true"},
		{func() { vs.Set("x", Int(-7)) }, "-7"},
	} {
		tc.set()
		for i := 0; i < 2; i++ {
			if got, ok := vs.Text("x"); !ok || got != tc.want {
				t.Errorf("Text = %q, %v; want %q", got, ok, tc.want)
			}
		}
	}
}
