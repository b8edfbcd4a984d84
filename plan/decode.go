package plan

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// ErrInvalid is matched (errors.Is) by every error Load returns for a plan
// file that is not valid: a syntax error, an unknown field, a value of the
// wrong type or a value out of range.
var ErrInvalid = errors.New("invalid plan")

// Problem is one thing wrong with a plan file, at a place in it.
type Problem struct {
	// Line and Column locate the value (or the key, for an unknown
	// field), counting from 1; 0 when the problem has no one place.
	Line, Column int
	// Field is the path of the field in the plan: "repetitions",
	// "targets[1].url", "workloads[0].options.warehouses".
	Field string
	Msg   string
}

// Error is every problem found in one plan file. It matches ErrInvalid.
type Error struct {
	Path     string
	Problems []Problem
}

// Error lists the problems one per line, each as
// "FILE:LINE:COLUMN: FIELD: message".
func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Path)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
		}
		b.WriteString(": ")
		if p.Field != "" {
			b.WriteString(p.Field + ": ")
		}
		b.WriteString(p.Msg)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *Error) Unwrap() error { return ErrInvalid }

// decoder walks the YAML syntax tree against the plan's schema and
// collects every problem instead of stopping at the first.
type decoder struct {
	probs []Problem
	// vars are the plan's variables (vars.go), by name.
	vars map[string]*planVar
}

// pos is the position of n: its first key for a mapping, its first item
// for a block sequence, its token otherwise.
func pos(n ast.Node) (int, int) {
	if n == nil {
		return 0, 0
	}
	switch v := n.(type) {
	case *ast.MappingNode:
		if len(v.Values) > 0 && !v.IsFlowStyle {
			return pos(v.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return pos(v.Key)
	case *ast.AnchorNode:
		if v.Value != nil {
			return pos(v.Value)
		}
	case *ast.TagNode:
		if v.Value != nil {
			return pos(v.Value)
		}
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return 0, 0
	}
	return tk.Position.Line, tk.Position.Column
}

func (d *decoder) errorf(n ast.Node, field, format string, args ...any) {
	line, col := pos(n)
	d.probs = append(d.probs, Problem{Line: line, Column: col, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// parseYAML parses data into its single document's body.
func (d *decoder) parseYAML(data []byte) ast.Node {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) && ye.GetToken() != nil && ye.GetToken().Position != nil {
			p := ye.GetToken().Position
			d.probs = append(d.probs, Problem{Line: p.Line, Column: p.Column, Msg: "YAML syntax: " + ye.GetMessage()})
		} else {
			d.probs = append(d.probs, Problem{Msg: "YAML syntax: " + err.Error()})
		}
		return nil
	}
	var bodies []ast.Node
	for _, doc := range f.Docs {
		if doc != nil && doc.Body != nil {
			bodies = append(bodies, doc.Body)
		}
	}
	switch len(bodies) {
	case 0:
		d.probs = append(d.probs, Problem{Msg: "the file is empty"})
		return nil
	case 1:
		return bodies[0]
	}
	d.errorf(bodies[1], "", "a plan is one YAML document; this file has %d", len(bodies))
	return nil
}

// resolve looks through anchors, aliases, tags and variables (a value
// that is `${name}`) to the value. Aliases are resolved by the parser's
// anchor links.
func (d *decoder) resolve(n ast.Node) ast.Node {
	n = d.resolveOnly(n)
	for range 10 { // a variable's value may be another's ${name}
		v, ok := d.variable(n)
		if !ok {
			return n
		}
		n = d.resolveOnly(v)
	}
	return n
}

// resolveOnly looks through anchors and tags.
func (d *decoder) resolveOnly(n ast.Node) ast.Node {
	for i := 0; i < 100 && n != nil; i++ {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.AliasNode:
			return n // reported by the callers as unsupported
		default:
			return n
		}
	}
	return n
}

// isNull tells whether n is absent or an explicit null.
func isNull(n ast.Node) bool {
	if n == nil {
		return true
	}
	_, ok := n.(*ast.NullNode)
	return ok
}

// kind names a node's type for messages.
func kind(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode:
		return "an integer"
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	case *ast.NullNode, nil:
		return "null"
	case *ast.AliasNode:
		return "an alias"
	}
	return "a " + n.Type().String()
}

// field is one key of a mapping and its value.
type field struct {
	key   string
	keyN  ast.Node
	value ast.Node
}

// mapping returns n's keys and values in order, reporting a non-mapping,
// merge keys, aliases and duplicate keys.
func (d *decoder) mapping(n ast.Node, path string) ([]field, bool) {
	n = d.resolve(n)
	var values []*ast.MappingValueNode
	switch v := n.(type) {
	case *ast.MappingNode:
		values = v.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{v}
	default:
		d.errorf(n, path, "want a mapping (key: value lines), got %s", kind(n))
		return nil, false
	}
	var out []field
	seen := map[string]bool{}
	ok := true
	for _, mv := range values {
		if mv.Key == nil {
			continue
		}
		if mv.Key.IsMergeKey() {
			d.errorf(mv.Key, path, "merge keys (<<) are not supported")
			ok = false
			continue
		}
		kn := d.resolve(mv.Key)
		var key string
		switch k := kn.(type) {
		case *ast.StringNode:
			key = k.Value
		case ast.ScalarNode:
			key = fmt.Sprint(k.GetValue())
		default:
			d.errorf(mv.Key, path, "want a plain key, got %s", kind(kn))
			ok = false
			continue
		}
		if seen[key] {
			d.errorf(mv.Key, join(path, key), "given twice")
			ok = false
			continue
		}
		seen[key] = true
		val := d.resolve(mv.Value)
		if _, alias := val.(*ast.AliasNode); alias {
			d.errorf(val, join(path, key), "aliases (*name) are not supported")
			ok = false
			continue
		}
		out = append(out, field{key: key, keyN: mv.Key, value: val})
	}
	return out, ok
}

// fields dispatches each key of the mapping n to its handler and reports
// unknown keys, naming the known ones.
func (d *decoder) fields(n ast.Node, path string, known []string, handle func(f field, fpath string)) bool {
	fs, ok := d.mapping(n, path)
	for _, f := range fs {
		fpath := join(path, f.key)
		if !contains(known, f.key) {
			d.errorf(f.keyN, fpath, "unknown field %q (known: %s)", f.key, strings.Join(known, ", "))
			ok = false
			continue
		}
		if isNull(f.value) {
			continue // "key:" with nothing is the same as leaving it out
		}
		handle(f, fpath)
	}
	return ok
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (d *decoder) str(n ast.Node, path string) (string, bool) {
	switch v := d.resolve(n).(type) {
	case *ast.StringNode:
		return d.interpolate(v.Value, n), true
	case *ast.LiteralNode:
		return v.Value.Value, true
	}
	d.errorf(n, path, "want a string, got %s", kind(d.resolve(n)))
	return "", false
}

// scalar is any scalar as the text an option or a setting takes: strings
// as written, numbers and booleans in their canonical form.
func (d *decoder) scalar(n ast.Node, path string) (string, bool) {
	switch v := d.resolve(n).(type) {
	case *ast.StringNode:
		return d.interpolate(v.Value, n), true
	case *ast.LiteralNode:
		return v.Value.Value, true
	case *ast.IntegerNode:
		return fmt.Sprint(v.Value), true
	case *ast.FloatNode:
		// The text as written keeps "0.10" and "1e3" what the user meant.
		if v.Token != nil {
			return v.Token.Value, true
		}
		return strconv.FormatFloat(v.Value, 'g', -1, 64), true
	case *ast.BoolNode:
		return strconv.FormatBool(v.Value), true
	}
	d.errorf(n, path, "want a single value (string, number or boolean), got %s", kind(d.resolve(n)))
	return "", false
}

func (d *decoder) integer(n ast.Node, path string) (int64, bool) {
	if v, ok := d.resolve(n).(*ast.IntegerNode); ok {
		switch x := v.Value.(type) {
		case int64:
			return x, true
		case uint64:
			if x <= math.MaxInt64 {
				return int64(x), true
			}
		}
		d.errorf(n, path, "%v is too large", v.Value)
		return 0, false
	}
	d.errorf(n, path, "want an integer, got %s", describe(d.resolve(n)))
	return 0, false
}

func (d *decoder) uinteger(n ast.Node, path string) (uint64, bool) {
	if v, ok := d.resolve(n).(*ast.IntegerNode); ok {
		switch x := v.Value.(type) {
		case int64:
			if x >= 0 {
				return uint64(x), true
			}
			d.errorf(n, path, "%d: must not be negative", x)
			return 0, false
		case uint64:
			return x, true
		}
	}
	d.errorf(n, path, "want a non-negative integer, got %s", describe(d.resolve(n)))
	return 0, false
}

// duration reads "90s", "5m", "1h30m" or a plain number of seconds.
func (d *decoder) duration(n ast.Node, path string) (time.Duration, bool) {
	switch v := d.resolve(n).(type) {
	case *ast.IntegerNode:
		if x, ok := v.Value.(int64); ok && x < math.MaxInt64/int64(time.Second) && x > math.MinInt64/int64(time.Second) {
			return time.Duration(x) * time.Second, true
		}
	case *ast.FloatNode:
		if math.Abs(v.Value) < float64(math.MaxInt64/int64(time.Second)) {
			return time.Duration(v.Value * float64(time.Second)), true
		}
	case *ast.StringNode:
		if x, err := time.ParseDuration(v.Value); err == nil {
			return x, true
		}
		d.errorf(n, path, "%q: want a duration such as 90s, 5m or 1h30m, or a number of seconds", v.Value)
		return 0, false
	}
	d.errorf(n, path, "want a duration such as 90s, 5m or 1h30m, or a number of seconds, got %s", describe(d.resolve(n)))
	return 0, false
}

// list returns the items of a sequence, or n itself as the only item of a
// scalar ("threads: 8" is "threads: [8]").
func (d *decoder) list(n ast.Node, path string) ([]ast.Node, bool) {
	switch v := d.resolve(n).(type) {
	case *ast.SequenceNode:
		items := make([]ast.Node, len(v.Values))
		for i, it := range v.Values {
			items[i] = d.resolve(it)
		}
		return items, true
	case *ast.MappingNode, *ast.MappingValueNode:
		d.errorf(n, path, "want a list or a single value, got %s", kind(v))
		return nil, false
	}
	return []ast.Node{d.resolve(n)}, true
}

// describe is kind(n) with the value of a scalar.
func describe(n ast.Node) string {
	switch v := n.(type) {
	case *ast.StringNode:
		return fmt.Sprintf("string %q", v.Value)
	case *ast.FloatNode, *ast.BoolNode, *ast.IntegerNode:
		return kind(n) + " " + v.(ast.ScalarNode).String()
	}
	return kind(n)
}
