package lang

import "testing"

// FuzzParse: no input makes the parser panic; a script it accepts has
// commands whose references lie inside their queries, and conditional
// blocks that link forward.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"SELECT 1;", "\\set x random(1, 10) * :y\nSELECT :x, ':x', x::int;", "SELECT 'a'':b' \\gset p_\n",
		"\\if :a\n\\elif 1\n\\else\n\\endif\n", "SELECT $$a;$$, $t$:x$t$, E'\\':y'; /* :z */ -- :w\n",
		"\\sleep 10ms\n\\sleep :t us\n", "SELECT 1 \\; SELECT 2 \\aset\n", "\\startpipeline\nSELECT 1;\n\\endpipeline\n",
		"\\set x 1 \\\n + 2\n", "SELECT ':", "'", "$a$", "\\", ":", "::", "SELECT (1;", "\\setshell x echo :y ::z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, shell := range []bool{false, true} {
			s, err := Parse("f.sql", src, ParseOptions{AllowShell: shell})
			if err != nil {
				_ = err.Error()
				continue
			}
			for i, c := range s.Commands {
				for _, q := range c.Queries {
					for _, r := range q.Refs {
						if r.Start < 0 || r.End > len(q.Text) || q.Text[r.Start:r.End] != ":"+r.Name {
							t.Fatalf("command %d: reference %+v outside %q", i, r, q.Text)
						}
					}
					q.Interpolate(func(string) (string, bool) { return "v", true })
					q.Parameterize(func(int) string { return "?" })
				}
				switch c.Kind {
				case IfCommand, ElifCommand, ElseCommand:
					if c.Next <= i || c.End < c.Next || c.End >= len(s.Commands) {
						t.Fatalf("command %d (%v): next %d end %d", i, c.Kind, c.Next, c.End)
					}
				}
			}
		}
	})
}

// FuzzEval: no expression makes the parser or the evaluator panic.
func FuzzEval(f *testing.F) {
	for _, s := range []string{"1 + 2 * 3", "random_zipfian(1, :n, 1.5)", "permute(:x, 10)", "case when :a then 1 else 2.5 end",
		"-9223372036854775808 / -1", "int(1e300)", "1 << 70", "hash(:x)", "greatest(1, 2.5, null)", "not :b is null"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseExpr(src)
		if err != nil {
			return
		}
		env := newTestEnv(map[string]string{"n": "100", "x": "7", "a": "true", "b": "null", "default_seed": "3"})
		_, _ = Eval(e, env)
		_ = e.String()
	})
}
