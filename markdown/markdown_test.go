package markdown

import "testing"

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"pg_16":                           `pg\_16`,
		"a|b":                             `a\|b`,
		"<script>alert(1)</script>":       "&lt;script&gt;alert(1)&lt;/script&gt;",
		"two\nlines":                      "two lines",
		"[x](javascript:alert(1)) *bold*": `\[x\](javascript:alert(1)) \*bold\*`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
