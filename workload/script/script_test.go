package script_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/workload/script"
	"github.com/dbarena/dbarena/workload/script/lang"
)

func TestBuiltinsParse(t *testing.T) {
	for _, name := range script.BuiltinNames() {
		text, ok := script.Builtin(name)
		if !ok {
			t.Fatalf("no built-in %s", name)
		}
		if _, err := lang.Parse(name, text, lang.ParseOptions{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestOpsNameTheScripts(t *testing.T) {
	w := script.New()
	if err := w.Define().Options.Parse([]string{"--file", "a/x.sql@2", "--file", "b/x.sql", "--builtin", "sel@5"}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, op := range w.Define().Ops {
		names = append(names, op.Name)
	}
	if got := strings.Join(names, " "); got != "x.sql x.sql#2 select-only" {
		t.Errorf("ops %q", got)
	}
	// Without a script, pgbench's default: tpcb-like.
	if ops := script.New().Define().Ops; len(ops) != 1 || ops[0].Name != "tpcb-like" {
		t.Errorf("default ops %v", ops)
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.sql", "SELECT 1;\n")
	bad := write("bad.sql", "SELECT 1;\n\\set x 1 +\n")
	pipe := write("pipe.sql", "\\startpipeline\nSELECT 1;\n\\endpipeline\n")
	pipeGset := write("pipegset.sql", "\\startpipeline\nSELECT 1;\nSELECT 1 AS one \\gset\n\\endpipeline\n")
	compound := write("compound.sql", "SELECT 1 \\; SELECT 2;\n")
	shell := write("shell.sql", "\\shell true\n")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--init", "pgbench2"}, []string{"--init pgbench2: must be pgbench or empty"}},
		{[]string{"--file", good + "@x"}, []string{"--file " + good + "@x: weight \"x\" must be an integer from 0 to 1073741824"}},
		{[]string{"--file", good + "@0"}, []string{"the scripts' weights add up to 0"}},
		{[]string{"--file", filepath.Join(dir, "missing.sql")}, []string{"missing.sql: no such file or directory"}},
		{[]string{"--builtin", "tpcc"}, []string{"--builtin tpcc: no such built-in script; the built-in scripts are tpcb-like, simple-update, select-only"}},
		{[]string{"--builtin", "s@2"}, []string{"--builtin s@2: ambiguous: the built-in scripts simple-update and select-only start with \"s\""}},
		{[]string{"--file", bad}, []string{"bad.sql:2:11: syntax error in command \"set\""}},
		{[]string{"--file", pipe}, []string{"pipe.sql:1:1: pipelines (\\startpipeline) cannot use the simple query protocol: give --protocol extended or prepared"}},
		{[]string{"--file", pipeGset, "--protocol", "extended"}, []string{"pipegset.sql:3:1: \\gset cannot be used in a pipeline"}},
		{[]string{"--file", compound, "--protocol", "prepared"}, []string{"compound queries (\\;) need --protocol simple, not prepared"}},
		{[]string{"--file", shell}, []string{"\\shell runs a command on the client"}},
		{[]string{"--builtin", "select-only", "-D", "novalue", "--protocol", "fast", "--scale", "0"},
			[]string{"--define novalue: must be name=value", "--protocol fast: must be simple, extended or prepared", "--scale 0: must be at least 1"}},
	} {
		w := script.New()
		if err := w.Define().Options.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		errs := w.Define().Validate()
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if len(got) != len(c.want) {
			t.Errorf("%v: errors %q, want %d", c.args, got, len(c.want))
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], c.want[i]) {
				t.Errorf("%v: error %q, want it to contain %q", c.args, got[i], c.want[i])
			}
		}
	}
	w := script.New()
	if err := w.Define().Options.Parse([]string{"--file", compound, "--file", good + "@3", "--builtin", "tpcb-like@0"}); err != nil {
		t.Fatal(err)
	}
	if errs := w.Define().Validate(); len(errs) != 0 {
		t.Errorf("valid options: %v", errs)
	}
}
