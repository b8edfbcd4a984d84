package plan

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// A plan's variables: `vars:` declares each with its default value, any
// YAML value (a number, a string, a list); `${name}` stands for it. A
// value that is `${name}` and nothing else takes the variable's value
// whatever it is (`threads: ${clients}` with `clients: [1, 2, 4]`); a
// string that holds `${name}` among other text has it replaced by the
// variable's text, which must then be a single value. Options.Vars (the
// CLI's --var name=value) overrides a default; the value given is read as
// YAML. Every variable given must be declared, and every ${name} used.

// varRE is a use of a variable; wholeVarRE is a value that is one.
var (
	varNameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	varRE      = regexp.MustCompile(`\$\{([^}]*)\}`)
	wholeVarRE = regexp.MustCompile(`^\$\{([^}]*)\}$`)
)

// planVar is one declared variable.
type planVar struct {
	value ast.Node
	decl  ast.Node // where it is declared
	// text is the value as a single value's text, ok false when it is a
	// list or a mapping.
	text string
	ok   bool
	used bool
}

// declareVars reads the body's vars field, before any other field, and
// applies the overrides given. Its problems are reported as the plan's.
func (d *decoder) declareVars(body ast.Node, given map[string]string) {
	d.vars = map[string]*planVar{}
	var values []*ast.MappingValueNode
	switch m := d.resolveOnly(body).(type) { // the plan's own problems are reported by its fields
	case *ast.MappingNode:
		values = m.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{m}
	}
	for _, mv := range values {
		if k, ok := d.resolveOnly(mv.Key).(*ast.StringNode); !ok || k.Value != "vars" {
			continue
		}
		vfs, _ := d.mapping(mv.Value, "vars")
		for _, vf := range vfs {
			if !varNameRE.MatchString(vf.key) {
				d.errorf(vf.keyN, join("vars", vf.key), "%q: a variable's name is letters, digits and _, not starting with a digit", vf.key)
				continue
			}
			d.vars[vf.key] = d.newVar(vf.value)
			d.vars[vf.key].decl = vf.keyN
		}
	}
	names := make([]string, 0, len(given))
	for name := range given {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v, ok := d.vars[name]
		if !ok {
			d.probs = append(d.probs, Problem{Field: "vars", Msg: fmt.Sprintf("--var %s=%s: the plan declares no variable %q (it declares: %s)", name, given[name], name, d.varNames())})
			continue
		}
		f, err := parser.ParseBytes([]byte("v: "+given[name]), 0)
		if err != nil || len(f.Docs) != 1 || f.Docs[0].Body == nil {
			d.probs = append(d.probs, Problem{Field: "vars", Msg: fmt.Sprintf("--var %s=%s: not a YAML value", name, given[name])})
			continue
		}
		var mv *ast.MappingValueNode
		switch b := f.Docs[0].Body.(type) {
		case *ast.MappingValueNode:
			mv = b
		case *ast.MappingNode:
			if len(b.Values) == 1 {
				mv = b.Values[0]
			}
		}
		if mv == nil {
			d.probs = append(d.probs, Problem{Field: "vars", Msg: fmt.Sprintf("--var %s=%s: not a YAML value", name, given[name])})
			continue
		}
		nv := d.newVar(mv.Value)
		nv.decl = v.decl
		*v = *nv
	}
}

func (d *decoder) newVar(n ast.Node) *planVar {
	v := &planVar{value: n}
	switch s := d.resolveOnly(n).(type) {
	case *ast.StringNode:
		v.text, v.ok = s.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		v.text, v.ok = s.GetToken().Value, true
	}
	return v
}

// varNames lists the declared variables for messages.
func (d *decoder) varNames() string {
	var names []string
	for name := range d.vars {
		names = append(names, name)
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// variable returns the value n stands for when n is `${name}`, and
// whether it is one; an undeclared name is reported once at n.
func (d *decoder) variable(n ast.Node) (ast.Node, bool) {
	s, ok := n.(*ast.StringNode)
	if !ok {
		return n, false
	}
	m := wholeVarRE.FindStringSubmatch(s.Value)
	if m == nil {
		return n, false
	}
	v, ok := d.vars[m[1]]
	if !ok {
		d.unknownVar(n, m[1])
		return n, false
	}
	v.used = true
	return v.value, true
}

// interpolate replaces every ${name} in s (read at n) by its variable's
// text.
func (d *decoder) interpolate(s string, n ast.Node) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return varRE.ReplaceAllStringFunc(s, func(use string) string {
		name := use[2 : len(use)-1]
		v, ok := d.vars[name]
		if !ok {
			d.unknownVar(n, name)
			return use
		}
		v.used = true
		if !v.ok {
			d.errorf(n, "", "${%s} inside a string: its value is a list or a mapping, not a single value", name)
			return use
		}
		return v.text
	})
}

func (d *decoder) unknownVar(n ast.Node, name string) {
	line, col := pos(n)
	p := Problem{Line: line, Column: col, Msg: fmt.Sprintf("${%s}: no such variable (declared under vars: %s)", name, d.varNames())}
	if !slices.Contains(d.probs, p) {
		d.probs = append(d.probs, p)
	}
}

// checkVarsUsed reports a declared variable that nothing uses, at its
// declaration.
func (d *decoder) checkVarsUsed() {
	var names []string
	for name, v := range d.vars {
		if !v.used {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		d.errorf(d.vars[name].decl, join("vars", name), "declared but never used as ${%s}", name)
	}
}
