package lang

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func mustParse(t *testing.T, src string, opts ParseOptions) *Script {
	t.Helper()
	s, err := Parse("test.sql", src, opts)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func queryTexts(s *Script) []string {
	var out []string
	for _, c := range s.Commands {
		if c.Kind != SQLCommand {
			out = append(out, `\`+c.Kind.String())
			continue
		}
		var qs []string
		for _, q := range c.Queries {
			qs = append(qs, q.Text)
		}
		out = append(out, strings.Join(qs, " | "))
	}
	return out
}

func TestParseSQLEndsAtSemicolonOutsideQuotes(t *testing.T) {
	src := `-- a comment line
SELECT 'a;b', "c;d", $$e;f$$, $t$g;$$h$t$, E'i\';j'
  FROM t /* k; /* nested; */ l; */ WHERE x = 1;
CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO u VALUES (1); INSERT INTO u VALUES (2));

UPDATE t SET a = a + 1 -- trailing; comment
  WHERE id = 2;
SELECT 3`
	got := queryTexts(mustParse(t, src, ParseOptions{}))
	want := []string{
		"SELECT 'a;b', \"c;d\", $$e;f$$, $t$g;$$h$t$, E'i\\';j'\n  FROM t /* k; /* nested; */ l; */ WHERE x = 1",
		"CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO u VALUES (1); INSERT INTO u VALUES (2))",
		"UPDATE t SET a = a + 1 -- trailing; comment\n  WHERE id = 2",
		"SELECT 3",
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("commands:\n got %q\nwant %q", got, want)
	}
}

func TestParseVariableReferences(t *testing.T) {
	s := mustParse(t, "SELECT :a, ':b', x::int, :c_1 + :\"d\" FROM t WHERE y = :a;", ParseOptions{})
	q := s.Commands[0].Queries[0]
	var names []string
	for _, r := range q.Refs {
		names = append(names, r.Name+"="+q.Text[r.Start:r.End])
	}
	if got, want := strings.Join(names, " "), "a=:a b=:b c_1=:c_1 a=:a"; got != want {
		t.Errorf("refs %q, want %q", got, want)
	}
	vars := map[string]string{"a": "5", "c_1": "x'y"}
	got := q.Interpolate(func(n string) (string, bool) { v, ok := vars[n]; return v, ok })
	if want := `SELECT 5, ':b', x::int, x'y + :"d" FROM t WHERE y = 5`; got != want {
		t.Errorf("Interpolate = %q, want %q", got, want)
	}
	vars["b"] = "bee"
	got = q.Interpolate(func(n string) (string, bool) { v, ok := vars[n]; return v, ok })
	if want := `SELECT 5, 'bee', x::int, x'y + :"d" FROM t WHERE y = 5`; got != want {
		t.Errorf("Interpolate = %q, want %q", got, want)
	}
	text, params := q.Parameterize(func(i int) string { return fmt.Sprintf("$%d", i) })
	if want := `SELECT $1, ':b', x::int, $2 + :"d" FROM t WHERE y = $3`; text != want || strings.Join(params, ",") != "a,c_1,a" {
		t.Errorf("Parameterize = %q %q", text, params)
	}
	// An unknown variable stays as written in simple mode, as pgbench's.
	if got := q.Interpolate(func(string) (string, bool) { return "", false }); got != q.Text {
		t.Errorf("Interpolate without variables = %q", got)
	}
}

func TestParseGsetAsetAndCompounds(t *testing.T) {
	src := `UPDATE a SET b = b + 1 WHERE id = :id RETURNING b \gset
SELECT 1 \;
SELECT 2 AS two, 3 AS three \gset p_
SELECT 4 AS four; \aset
SELECT 5;
`
	s := mustParse(t, src, ParseOptions{})
	if got := queryTexts(s); fmt.Sprint(got) != fmt.Sprint([]string{
		"UPDATE a SET b = b + 1 WHERE id = :id RETURNING b", "SELECT 1 | SELECT 2 AS two, 3 AS three", "SELECT 4 AS four", "SELECT 5"}) {
		t.Fatalf("commands %q", got)
	}
	for i, want := range []struct {
		mode   ResultMode
		prefix string
	}{{ResultGset, ""}, {ResultGset, "p_"}, {ResultAset, ""}, {ResultNone, ""}} {
		if c := s.Commands[i]; c.Result != want.mode || c.Prefix != want.prefix {
			t.Errorf("command %d: result %d prefix %q, want %d %q", i, c.Result, c.Prefix, want.mode, want.prefix)
		}
	}
}

func TestParseMetaCommands(t *testing.T) {
	src := `\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000) \
   * 2
\SLEEP 10 ms
\sleep :t us
\sleep 5ms
\sleep 2
\startpipeline
SELECT 1;
\syncpipeline
\endpipeline
\setshell out echo :aid 7
\shell touch x
`
	s := mustParse(t, src, ParseOptions{AllowShell: true})
	c := s.Commands
	if c[0].Kind != SetCommand || c[0].Var != "aid" || c[0].Expr.String() != "random(1, (100000 * :scale))" {
		t.Errorf("set: %v %q %v", c[0].Kind, c[0].Var, c[0].Expr)
	}
	if c[1].Expr.String() != "(random((0 - 5000), 5000) * 2)" {
		t.Errorf("continued set: %v", c[1].Expr)
	}
	sleeps := []struct {
		arg  Arg
		unit time.Duration
	}{{Arg{"10", ""}, time.Millisecond}, {Arg{":t", "t"}, time.Microsecond}, {Arg{"5", ""}, time.Millisecond}, {Arg{"2", ""}, time.Second}}
	for i, w := range sleeps {
		if got := c[2+i]; got.Kind != SleepCommand || got.Sleep != w.arg || got.Unit != w.unit {
			t.Errorf("sleep %d: %v %+v %v, want %+v %v", i, got.Kind, got.Sleep, got.Unit, w.arg, w.unit)
		}
	}
	kinds := []CommandKind{StartPipelineCommand, SQLCommand, SyncPipelineCommand, EndPipelineCommand, SetShellCommand, ShellCommand}
	for i, k := range kinds {
		if c[6+i].Kind != k {
			t.Errorf("command %d is %v, want %v", 6+i, c[6+i].Kind, k)
		}
	}
	if sh := c[10]; sh.Var != "out" || fmt.Sprint(sh.Args) != "[{echo } {:aid aid} {7 }]" {
		t.Errorf("setshell: %q %v", sh.Var, sh.Args)
	}
	if c[2].Pos != (Pos{"test.sql", 4, 1}) || c[7].Pos != (Pos{"test.sql", 9, 1}) {
		t.Errorf("positions %v %v", c[2].Pos, c[7].Pos)
	}
}

func TestParseConditionalsLinkBranches(t *testing.T) {
	src := `\if :a = 1
SELECT 1;
\elif :a = 2
\if true
SELECT 2;
\endif
\else
SELECT 3;
\endif
SELECT 4;
`
	c := mustParse(t, src, ParseOptions{}).Commands
	// 0 if, 1 sql, 2 elif, 3 if, 4 sql, 5 endif, 6 else, 7 sql, 8 endif, 9 sql
	for _, w := range []struct{ i, next, end int }{{0, 2, 8}, {2, 6, 8}, {3, 5, 5}, {6, 8, 8}, {8, 0, 8}, {5, 0, 5}} {
		if c[w.i].Next != w.next || c[w.i].End != w.end {
			t.Errorf("command %d (%v): next %d end %d, want %d %d", w.i, c[w.i].Kind, c[w.i].Next, c[w.i].End, w.next, w.end)
		}
	}
}

func TestParseErrorsNameFileLineColumn(t *testing.T) {
	for _, c := range []struct {
		src, want string
		opts      ParseOptions
	}{
		{src: "SELECT 1;\n\\set x 1 +\n", want: "test.sql:2:11: syntax error in command \"set\"\n\\set x 1 +\n          ^ error found here"},
		{src: "\\set x foo(1)", want: "test.sql:1:8: unexpected function name (foo) in command \"set\"\n\\set x foo(1)\n       ^ error found here"},
		{src: "\\set x abs(1, 2)", want: "test.sql:1:8: unexpected number of arguments (abs) in command \"set\""},
		{src: "\\set x least()", want: "at least one argument expected (least)"},
		{src: "\\set x 99999999999999999999", want: "bigint constant overflow (99999999999999999999)"},
		{src: "\\set x", want: "test.sql:1:1: missing argument in command \"set\""},
		{src: "\\sleep 10 xs", want: "test.sql:1:11: unrecognized time unit, must be us, ms or s in command \"sleep\"\n\\sleep 10 xs\n          ^ error found here"},
		{src: "\\sleep abc", want: "test.sql:1:8: invalid sleep time, must be an integer"},
		{src: "\\sleep 1 s 2", want: "too many arguments"},
		{src: "\\gset", want: "test.sql:1:1: \\gset must follow an SQL command"},
		{src: "\\set x 1\n\\aset", want: "\\aset must follow an SQL command"},
		{src: "SELECT 1 \\gset\n\\gset", want: "test.sql:2:1: \\gset must follow an SQL command"},
		{src: "SELECT 1 \\gset p_ extra", want: "too many arguments in command \"gset\""},
		{src: "\\else", want: "test.sql:1:1: \\else without matching \\if"},
		{src: "\\elif 1", want: "\\elif without matching \\if"},
		{src: "\\endif", want: "\\endif without matching \\if"},
		{src: "SELECT 1;\n  \\if 1\nSELECT 2;", want: "test.sql:2:3: \\if without matching \\endif in command \"if\""},
		{src: "\\if 1\n\\else\n\\elif 2\n\\endif", want: "test.sql:3:1: \\elif after \\else"},
		{src: "\\if 1\n\\else\n\\else\n\\endif", want: "test.sql:3:1: \\else after \\else"},
		{src: "\\if 1\n\\endif x", want: "test.sql:2:8: unexpected argument in command \"endif\""},
		{src: "\\if", want: "missing argument in command \"if\""},
		{src: "\\startpipeline\n\\startpipeline", want: "test.sql:2:1: already in a pipeline (\\startpipeline at line 1)"},
		{src: "\\endpipeline", want: "\\endpipeline outside a pipeline"},
		{src: "\\syncpipeline", want: "\\syncpipeline outside a pipeline"},
		{src: "\\startpipeline\nSELECT 1;", want: "test.sql:1:1: \\startpipeline without \\endpipeline"},
		{src: "\\shell ls", want: "test.sql:1:1: \\shell runs a command on the client and is refused unless shell commands are allowed"},
		{src: "\\setshell x echo 1", want: "\\setshell runs a command on the client"},
		{src: "\\setshell x", opts: ParseOptions{AllowShell: true}, want: "missing command"},
		{src: "\\shell", opts: ParseOptions{AllowShell: true}, want: "missing command"},
		{src: "\\foo", want: "test.sql:1:1: invalid command \\foo"},
		{src: "SELECT 'abc;\n", want: "test.sql:1:8: unterminated quoted string"},
		{src: "SELECT $a$ x", want: "unterminated dollar-quoted string"},
		{src: "SELECT 1 /* x", want: "unterminated /* comment"},
		{src: "-- nothing\n\n", want: "test.sql:1:1: no commands in script"},
		{src: "\\set 1x-y 2", want: "invalid variable name \"1x-y\""},
	} {
		t.Run(c.src, func(t *testing.T) {
			_, err := Parse("test.sql", c.src, c.opts)
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if _, ok := err.(*SyntaxError); !ok {
				t.Errorf("error is %T, not *SyntaxError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error:\n%s\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
}

func TestVarsTextAndValues(t *testing.T) {
	vs := NewVars()
	vs.SetText("a", "42")
	vs.SetText("b", "1.5e3")
	vs.SetText("c", "ye")
	vs.SetText("d", "abc")
	vs.Set("e", Double(0.1))
	vs.Set("f", Null())
	for _, c := range []struct{ name, value, text string }{
		{"a", "int 42", "42"}, {"b", "double 1500", "1.5e3"}, {"c", "boolean true", "ye"},
		{"e", "double 0.1", "0.1"}, {"f", "null", "NULL"},
	} {
		v, ok, err := vs.Value(c.name)
		if !ok || err != nil || v.Debug() != c.value {
			t.Errorf("Value(%s) = %v %v %v, want %s", c.name, v.Debug(), ok, err, c.value)
		}
		if s, _ := vs.Text(c.name); s != c.text {
			t.Errorf("Text(%s) = %q, want %q", c.name, s, c.text)
		}
	}
	if _, ok, err := vs.Value("d"); !ok || err == nil {
		t.Errorf("Value(d) of text abc: ok %v err %v, want a malformed-value error", ok, err)
	}
	if _, ok, _ := vs.Value("zz"); ok {
		t.Error("Value of an unset variable is ok")
	}
}

func TestParseValueAsPgbench(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"null", "null"}, {"NULL", "null"}, {"t", "boolean true"}, {"TRUE", "boolean true"}, {"y", "boolean true"},
		{"on", "boolean true"}, {"f", "boolean false"}, {"no", "boolean false"}, {"of", "boolean false"},
		{"off", "boolean false"}, {"0", "int 0"}, {"-17", "int -17"}, {" 5 ", "int 5"}, {"+3", "int 3"},
		{"1.25", "double 1.25"}, {"-1e-2", "double -0.01"}, {"o", "error"}, {"", "error"}, {"1_000", "error"},
		{"99999999999999999999", "error"}, {"12abc", "error"},
	} {
		v, err := ParseValue(c.in)
		got := v.Debug()
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("ParseValue(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
