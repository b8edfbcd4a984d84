package lang

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// EvalError is an error evaluating an expression, worded as pgbench's
// ("division by zero", "bigint add out of range", "undefined variable
// \"aid\"").
type EvalError struct{ Msg string }

func (e *EvalError) Error() string { return e.Msg }

func evalErrorf(format string, args ...any) error {
	return &EvalError{fmt.Sprintf(format, args...)}
}

// Env is what an expression needs from the client evaluating it.
type Env interface {
	// Variable returns a variable's value: ok is false when it is not
	// set, err non-nil when its text is not a value (see ParseValue).
	Variable(name string) (v Value, ok bool, err error)
	// Rand is the client's generator for the random functions.
	Rand() *Rand
	// Debug receives the argument of debug().
	Debug(v Value)
}

// Eval evaluates e in env. NULL propagates through operators and
// functions (but for IS, debug and the short-circuit of AND and OR); its
// errors are EvalErrors.
func Eval(e Expr, env Env) (Value, error) {
	switch e := e.(type) {
	case constExpr:
		return e.v, nil
	case varExpr:
		v, ok, err := env.Variable(e.name)
		if err != nil {
			return Value{}, evalErrorf("malformed variable \"%s\": %v", e.name, err)
		}
		if !ok {
			return Value{}, evalErrorf("undefined variable \"%s\"", e.name)
		}
		return v, nil
	case andExpr, orExpr:
		return evalLogic(e, env)
	case notExpr:
		v, err := Eval(e.x, env)
		if err != nil || v.IsNull() {
			return v, err
		}
		b, err := v.AsBool()
		return Bool(!b), err
	case isExpr:
		v, err := Eval(e.x, env)
		if err != nil {
			return v, err
		}
		is := v.kind == e.v.kind && (v.kind == KindNull || v.i == e.v.i)
		return Bool(is != e.not), nil
	case caseExpr:
		for i, w := range e.when {
			c, err := Eval(w, env)
			if err != nil {
				return c, err
			}
			if c.Truth() {
				return Eval(e.then[i], env)
			}
		}
		if e.els == nil {
			return Null(), nil
		}
		return Eval(e.els, env)
	case binaryExpr:
		l, err := Eval(e.l, env)
		if err != nil {
			return l, err
		}
		r, err := Eval(e.r, env)
		if err != nil {
			return r, err
		}
		if l.IsNull() || r.IsNull() {
			return Null(), nil
		}
		return binary(e.op, l, r)
	case callExpr:
		if e.fn.random && len(e.args) <= 3 {
			return evalRandom(e, env)
		}
		args := make([]Value, len(e.args))
		null := false
		for i, a := range e.args {
			v, err := Eval(a, env)
			if err != nil {
				return v, err
			}
			args[i] = v
			null = null || v.IsNull()
		}
		if e.fn.name == "debug" {
			env.Debug(args[0])
			return args[0], nil
		}
		if null {
			return Null(), nil
		}
		return e.fn.call(env, args)
	}
	panic(fmt.Sprintf("lang: unknown expression %T", e))
}

// evalRandom evaluates a call of a random function with its arguments
// on the stack: the functions of pgbench's scripts that run in every
// transaction cost no allocation.
func evalRandom(e callExpr, env Env) (Value, error) {
	var buf [3]Value
	args := buf[:len(e.args)]
	null := false
	for i, a := range e.args {
		v, err := Eval(a, env)
		if err != nil {
			return v, err
		}
		args[i] = v
		null = null || v.IsNull()
	}
	if null {
		return Null(), nil
	}
	return callRandom(e.fn.name, env, args)
}

// evalLogic evaluates AND and OR as pgbench does: a NULL left operand
// gives NULL, a deciding left operand gives the answer without evaluating
// the right one; operands must be booleans.
func evalLogic(e Expr, env Env) (Value, error) {
	var l, r Expr
	and := false
	switch e := e.(type) {
	case andExpr:
		l, r, and = e.l, e.r, true
	case orExpr:
		l, r = e.l, e.r
	}
	lv, err := Eval(l, env)
	if err != nil || lv.IsNull() {
		return lv, err
	}
	lb, err := lv.AsBool()
	if err != nil {
		return Value{}, err
	}
	if lb != and { // false AND …, true OR …
		return Bool(lb), nil
	}
	rv, err := Eval(r, env)
	if err != nil || rv.IsNull() {
		return rv, err
	}
	rb, err := rv.AsBool()
	return Bool(rb), err
}

func binary(op string, l, r Value) (Value, error) {
	switch op {
	case "+", "-", "*", "=", "<>", "<", "<=", ">", ">=":
		if l.kind == KindDouble || r.kind == KindDouble {
			a, err := l.AsDouble()
			if err != nil {
				return Value{}, err
			}
			b, err := r.AsDouble()
			if err != nil {
				return Value{}, err
			}
			switch op {
			case "+":
				return Double(a + b), nil
			case "-":
				return Double(a - b), nil
			case "*":
				return Double(a * b), nil
			}
			return Bool(compare(op, a < b, a == b)), nil
		}
	case "/":
		if l.kind == KindDouble || r.kind == KindDouble {
			a, err := l.AsDouble()
			if err != nil {
				return Value{}, err
			}
			b, err := r.AsDouble()
			if err != nil {
				return Value{}, err
			}
			return Double(a / b), nil
		}
	}
	a, err := l.AsInt()
	if err != nil {
		return Value{}, err
	}
	b, err := r.AsInt()
	if err != nil {
		return Value{}, err
	}
	switch op {
	case "+":
		s := a + b
		if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) {
			return Value{}, evalErrorf("bigint add out of range")
		}
		return Int(s), nil
	case "-":
		d := a - b
		if (a >= 0) != (b >= 0) && (d >= 0) != (a >= 0) {
			return Value{}, evalErrorf("bigint sub out of range")
		}
		return Int(d), nil
	case "*":
		p, ok := mulInt(a, b)
		if !ok {
			return Value{}, evalErrorf("bigint mul out of range")
		}
		return Int(p), nil
	case "/", "%":
		return divInt(op, a, b)
	case "&":
		return Int(a & b), nil
	case "|":
		return Int(a | b), nil
	case "#":
		return Int(a ^ b), nil
	case "<<":
		// The count is taken modulo 64, as the hardware pgbench runs on.
		return Int(a << (uint64(b) & 63)), nil
	case ">>":
		return Int(a >> (uint64(b) & 63)), nil
	}
	return Bool(compare(op, a < b, a == b)), nil
}

func compare(op string, lt, eq bool) bool {
	switch op {
	case "=":
		return eq
	case "<>":
		return !eq
	case "<":
		return lt
	case "<=":
		return lt || eq
	case ">":
		return !lt && !eq
	}
	return !lt // ">="
}

func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}

func divInt(op string, a, b int64) (Value, error) {
	if b == 0 {
		return Value{}, evalErrorf("division by zero")
	}
	if b == -1 {
		if op == "%" {
			return Int(0), nil
		}
		if a == math.MinInt64 {
			return Value{}, evalErrorf("bigint div out of range")
		}
		return Int(-a), nil
	}
	if op == "%" {
		return Int(a % b), nil
	}
	return Int(a / b), nil
}

// function is one built-in function of expressions.
type function struct {
	name             string
	minArgs, maxArgs int  // minArgs -1: one or more
	seeded           bool // the last argument defaults to :default_seed
	random           bool // random, random_exponential, random_gaussian, random_zipfian: callRandom
	call             func(env Env, args []Value) (Value, error)
}

var functions map[string]*function

func lookupFunction(name string) *function { return functions[strings.ToLower(name)] }

// FunctionNames lists the built-in functions' names.
func FunctionNames() []string {
	names := make([]string, 0, len(functions))
	for n := range functions {
		names = append(names, n)
	}
	return names
}

func init() {
	fns := []*function{
		{name: "abs", minArgs: 1, maxArgs: 1, call: fnAbs},
		{name: "debug", minArgs: 1, maxArgs: 1}, // handled by Eval
		{name: "double", minArgs: 1, maxArgs: 1, call: fnDouble(func(x float64) float64 { return x })},
		{name: "exp", minArgs: 1, maxArgs: 1, call: fnDouble(math.Exp)},
		{name: "greatest", minArgs: -1, call: fnExtreme(false)},
		{name: "hash", minArgs: 1, maxArgs: 2, seeded: true, call: fnHash(HashMurmur2)},
		{name: "hash_fnv1a", minArgs: 1, maxArgs: 2, seeded: true, call: fnHash(HashFNV1a)},
		{name: "hash_murmur2", minArgs: 1, maxArgs: 2, seeded: true, call: fnHash(HashMurmur2)},
		{name: "int", minArgs: 1, maxArgs: 1, call: fnInt},
		{name: "least", minArgs: -1, call: fnExtreme(true)},
		{name: "ln", minArgs: 1, maxArgs: 1, call: fnDouble(math.Log)},
		{name: "mod", minArgs: 2, maxArgs: 2, call: fnMod},
		{name: "permute", minArgs: 2, maxArgs: 3, seeded: true, call: fnPermute},
		{name: "pi", minArgs: 0, maxArgs: 0, call: func(Env, []Value) (Value, error) { return Double(math.Pi), nil }},
		{name: "pow", minArgs: 2, maxArgs: 2, call: fnPow},
		{name: "power", minArgs: 2, maxArgs: 2, call: fnPow},
		{name: "random", minArgs: 2, maxArgs: 2},
		{name: "random_exponential", minArgs: 3, maxArgs: 3},
		{name: "random_gaussian", minArgs: 3, maxArgs: 3},
		{name: "random_zipfian", minArgs: 3, maxArgs: 3},
		{name: "sqrt", minArgs: 1, maxArgs: 1, call: fnDouble(math.Sqrt)},
	}
	functions = make(map[string]*function, len(fns))
	for _, f := range fns {
		functions[f.name] = f
	}
	// The random functions need their own name at call time.
	for _, n := range []string{"random", "random_exponential", "random_gaussian", "random_zipfian"} {
		f := functions[n]
		f.random = true
		name := n
		f.call = func(env Env, args []Value) (Value, error) { return callRandom(name, env, args) }
	}
}

func fnAbs(_ Env, a []Value) (Value, error) {
	switch a[0].kind {
	case KindInt:
		if a[0].i < 0 {
			return Int(-a[0].i), nil
		}
		return a[0], nil
	case KindDouble:
		return Double(math.Abs(a[0].f)), nil
	}
	return Value{}, evalErrorf("cannot coerce %s to int", a[0].kind)
}

func fnDouble(f func(float64) float64) func(Env, []Value) (Value, error) {
	return func(_ Env, a []Value) (Value, error) {
		x, err := a[0].AsDouble()
		if err != nil {
			return Value{}, err
		}
		return Double(f(x)), nil
	}
}

func fnInt(_ Env, a []Value) (Value, error) {
	i, err := a[0].AsInt()
	return Int(i), err
}

func fnPow(_ Env, a []Value) (Value, error) {
	x, err := a[0].AsDouble()
	if err != nil {
		return Value{}, err
	}
	y, err := a[1].AsDouble()
	if err != nil {
		return Value{}, err
	}
	return Double(math.Pow(x, y)), nil
}

func fnMod(_ Env, a []Value) (Value, error) { return binary("%", a[0], a[1]) }

// fnExtreme is least and greatest: a double when any argument is one,
// else an int.
func fnExtreme(least bool) func(Env, []Value) (Value, error) {
	return func(_ Env, a []Value) (Value, error) {
		anyDouble := false
		for _, v := range a {
			anyDouble = anyDouble || v.kind == KindDouble
		}
		if anyDouble {
			var best float64
			for i, v := range a {
				x, err := v.AsDouble()
				if err != nil {
					return Value{}, err
				}
				if i == 0 || (least && x < best) || (!least && x > best) {
					best = x
				}
			}
			return Double(best), nil
		}
		var best int64
		for i, v := range a {
			x, err := v.AsInt()
			if err != nil {
				return Value{}, err
			}
			if i == 0 || (least && x < best) || (!least && x > best) {
				best = x
			}
		}
		return Int(best), nil
	}
}

func fnHash(h func(v, seed int64) int64) func(Env, []Value) (Value, error) {
	return func(_ Env, a []Value) (Value, error) {
		v, err := a[0].AsInt()
		if err != nil {
			return Value{}, err
		}
		seed, err := a[1].AsInt()
		if err != nil {
			return Value{}, err
		}
		return Int(h(v, seed)), nil
	}
}

func fnPermute(_ Env, a []Value) (Value, error) {
	var n [3]int64
	for i := range n {
		x, err := a[i].AsInt()
		if err != nil {
			return Value{}, err
		}
		n[i] = x
	}
	if n[1] <= 0 {
		return Value{}, evalErrorf("permute size parameter must be greater than zero")
	}
	return Int(Permute(n[0], n[1], n[2])), nil
}

// Parameter bounds of the random functions, as pgbench's.
const (
	MinGaussianParam = 2.0
	MinZipfianParam  = 1.001
	MaxZipfianParam  = 1000.0
)

func callRandom(name string, env Env, a []Value) (Value, error) {
	lb, err := a[0].AsInt()
	if err != nil {
		return Value{}, err
	}
	ub, err := a[1].AsInt()
	if err != nil {
		return Value{}, err
	}
	if err := checkRange(lb, ub); err != nil {
		return Value{}, err
	}
	if name == "random" {
		return Int(env.Rand().Uniform(lb, ub)), nil
	}
	p, err := a[2].AsDouble()
	if err != nil {
		return Value{}, err
	}
	switch name {
	case "random_exponential":
		if !(p > 0) {
			return Value{}, evalErrorf("exponential parameter must be greater than zero (not %f)", p)
		}
		return Int(env.Rand().Exponential(lb, ub, p)), nil
	case "random_gaussian":
		if !(p >= MinGaussianParam) {
			return Value{}, evalErrorf("gaussian parameter must be at least %f (not %f)", MinGaussianParam, p)
		}
		return Int(env.Rand().Gaussian(lb, ub, p)), nil
	}
	if !(p >= MinZipfianParam && p <= MaxZipfianParam) {
		return Value{}, evalErrorf("zipfian parameter must be in range [%.3f, %.0f] (not %f)", MinZipfianParam, MaxZipfianParam, p)
	}
	return Int(env.Rand().Zipfian(lb, ub, p)), nil
}

// IsEvalError reports whether err is an error of evaluation.
func IsEvalError(err error) bool {
	var e *EvalError
	return errors.As(err, &e)
}
