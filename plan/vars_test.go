package plan_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/plan"
)

const withVars = `
vars:
  clients: [1, 2, 4]
  events: 2000
  buffers: 64MB
duration: 10s
threads: ${clients}
targets:
  - {label: pg, url: "managed:postgres?shared_buffers=${buffers}"}
workloads:
  - name: docolap
    options: {events: "${events}"}
`

// threadsOf lists the thread counts of p's cells, in order.
func threadsOf(p *plan.Plan) []int {
	var out []int
	for _, c := range p.Cells {
		out = append(out, c.Threads)
	}
	return out
}

// A variable stands for any value where its ${name} is the whole value,
// and for its text inside a string; --var overrides its default, its
// value read as YAML.
func TestVars(t *testing.T) {
	p := parse(t, withVars)
	if got := threadsOf(p); !slices.Equal(got, []int{1, 2, 4}) {
		t.Errorf("threads = %v, want the variable's [1 2 4]", got)
	}
	if u := p.Targets[0].URL; !strings.Contains(u, "shared_buffers=64MB") {
		t.Errorf("target URL %q lacks the variable's text", u)
	}
	if o := p.Workloads[0].Options; len(o) != 1 || o[0].Value != "2000" {
		t.Errorf("options = %v, want events 2000", o)
	}

	p, err := plan.Parse(filepath.Join(t.TempDir(), "exp.yaml"), []byte(withVars), plan.Options{Vars: map[string]string{"clients": "[8, 16]", "events": "500"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := threadsOf(p); !slices.Equal(got, []int{8, 16}) {
		t.Errorf("threads with --var clients=[8, 16] = %v", got)
	}
	if o := p.Workloads[0].Options; o[0].Value != "500" {
		t.Errorf("options with --var events=500 = %v", o)
	}
}

// Every problem with variables is reported, with the rest of the plan's:
// a use of an undeclared one, a --var the plan does not declare, one
// nothing uses, a list inside a string, a bad name.
func TestVarProblems(t *testing.T) {
	src := `
vars:
  clients: [1, 2]
  unused: 3
  9bad: 1
duration: ${durtion}
threads: ${clients}
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/x${clients}"}
workloads:
  - name: oltp_point_select
`
	pe := problems(t, src, plan.Options{Vars: map[string]string{"nosuch": "1"}})
	msg := pe.Error()
	for _, want := range []string{
		"${durtion}: no such variable (declared under vars: clients, unused)",
		"--var nosuch=1: the plan declares no variable \"nosuch\"",
		"vars.unused: declared but never used as ${unused}",
		"${clients} inside a string: its value is a list or a mapping",
		`"9bad": a variable's name is letters, digits and _`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("problems lack %q:\n%s", want, msg)
		}
	}
}
