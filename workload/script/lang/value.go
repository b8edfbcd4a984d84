package lang

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a Value: pgbench's NULL, boolean, int (int64) and
// double (float64).
type Kind uint8

// The kinds of values, as pgbench names them in its messages.
const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindDouble
)

// String names the kind as pgbench's messages do ("cannot coerce boolean
// to int").
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindInt:
		return "int"
	case KindDouble:
		return "double"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Value is one typed value of a script: the result of an expression or the
// value of a variable. The zero Value is NULL.
type Value struct {
	kind Kind
	i    int64
	f    float64
}

// Null returns the NULL value.
func Null() Value { return Value{} }

// Bool returns a boolean value.
func Bool(b bool) Value {
	v := Value{kind: KindBool}
	if b {
		v.i = 1
	}
	return v
}

// Int returns an integer value.
func Int(i int64) Value { return Value{kind: KindInt, i: i} }

// Double returns a double value.
func Double(f float64) Value { return Value{kind: KindDouble, f: f} }

// Kind returns the value's type.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.kind == KindNull }

// Truth is the value as a condition of \if and CASE WHEN: NULL is false,
// numbers are true when not zero.
func (v Value) Truth() bool {
	switch v.kind {
	case KindBool, KindInt:
		return v.i != 0
	case KindDouble:
		return v.f != 0
	}
	return false
}

// AsBool returns a boolean value; any other kind is an error, as in pgbench.
func (v Value) AsBool() (bool, error) {
	if v.kind != KindBool {
		return false, evalErrorf("cannot coerce %s to boolean", v.kind)
	}
	return v.i != 0, nil
}

// AsInt returns the value as an integer: an int as is, a double rounded to
// the nearest integer (halves to even, as C's rint) when it fits.
func (v Value) AsInt() (int64, error) {
	switch v.kind {
	case KindInt:
		return v.i, nil
	case KindDouble:
		r := math.RoundToEven(v.f)
		// 2^63 is the first double that does not fit; -2^63 fits.
		if math.IsNaN(r) || r >= 9223372036854775808.0 || r < -9223372036854775808.0 {
			return 0, evalErrorf("double to int overflow for %f", r)
		}
		return int64(r), nil
	}
	return 0, evalErrorf("cannot coerce %s to int", v.kind)
}

// AsDouble returns the value as a double: a double as is, an int converted.
func (v Value) AsDouble() (float64, error) {
	switch v.kind {
	case KindDouble:
		return v.f, nil
	case KindInt:
		return float64(v.i), nil
	}
	return 0, evalErrorf("cannot coerce %s to double", v.kind)
}

// String is the value as text, as pgbench interpolates it into SQL and
// shell commands: NULL, true/false, the integer, or the double with 15
// significant digits (C's "%.15g"; infinities as Infinity and -Infinity).
func (v Value) String() string {
	switch v.kind {
	case KindBool:
		if v.i != 0 {
			return "true"
		}
		return "false"
	case KindInt:
		return strconv.FormatInt(v.i, 10)
	case KindDouble:
		return formatDouble(v.f)
	}
	return "NULL"
}

// Debug is the value as pgbench's debug() prints it: its kind and text
// ("int 5", "double 0.5", "boolean true", "null").
func (v Value) Debug() string {
	if v.kind == KindNull {
		return "null"
	}
	return v.kind.String() + " " + v.String()
}

func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', 15, 64)
}

// ParseValue reads a variable's text as pgbench does when an expression
// uses it: "null" (any case) is NULL; a prefix of true, yes, false or no
// (at least one letter), or on, of, off, is a boolean; an integer is an
// int; otherwise it must be a double.
func ParseValue(s string) (Value, error) {
	t := strings.TrimSpace(s)
	lower := strings.ToLower(t)
	switch {
	case lower == "":
	case lower == "null":
		return Null(), nil
	case strings.HasPrefix("true", lower), strings.HasPrefix("yes", lower), lower == "on":
		return Bool(true), nil
	case strings.HasPrefix("false", lower), strings.HasPrefix("no", lower), lower == "off", lower == "of":
		return Bool(false), nil
	case isInteger(t):
		if i, err := strconv.ParseInt(t, 10, 64); err == nil {
			return Int(i), nil
		}
	default:
		if f, err := strconv.ParseFloat(t, 64); err == nil && !strings.ContainsRune(t, '_') {
			return Double(f), nil
		}
	}
	return Value{}, fmt.Errorf("malformed variable value %q", s)
}

func isInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
