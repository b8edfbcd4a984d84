package lang

import (
	"testing"
)

// testEnv is an Env of fixed variables and a seeded generator; it records
// what debug() receives.
type testEnv struct {
	vars   map[string]string
	rand   *Rand
	debugs []string
}

func newTestEnv(vars map[string]string) *testEnv {
	return &testEnv{vars: vars, rand: NewRand(1)}
}

func (e *testEnv) Variable(name string) (Value, bool, error) {
	s, ok := e.vars[name]
	if !ok {
		return Value{}, false, nil
	}
	v, err := ParseValue(s)
	return v, true, err
}
func (e *testEnv) Rand() *Rand   { return e.rand }
func (e *testEnv) Debug(v Value) { e.debugs = append(e.debugs, v.Debug()) }

// evalText parses and evaluates src, giving the value as debug() prints
// it or "error: " and the message.
func evalText(src string, env Env) string {
	e, err := ParseExpr(src)
	if err != nil {
		return "error: " + err.Error()
	}
	v, err := Eval(e, env)
	if err != nil {
		return "error: " + err.Error()
	}
	return v.Debug()
}

// TestEvalMatchesPgbench holds what pgbench 15.18 printed for
// `\set r debug(<expression>)` (value or error message), for every
// operator, function, coercion and error it has.
func TestEvalMatchesPgbench(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"null and false", "null"},
		{"false and null", "boolean false"},
		{"true and null", "null"},
		{"null or true", "null"},
		{"true or null", "boolean true"},
		{"null or false", "null"},
		{"1.5e0 + 2", "double 3.5"},
		{"1 << 65", "int 2"},
		{"1 << -1", "int -9223372036854775808"},
		{"-8 >> 1", "int -4"},
		{"pi()", "double 3.14159265358979"},
		{"10 # 3", "int 9"},
		{"1 = 1.0", "boolean true"},
		{"case when 0 then 1 end", "null"},
		{"not null", "null"},
		{"null is null", "boolean true"},
		{"1 is not null", "boolean true"},
		{"true is true", "boolean true"},
		{"1 is true", "boolean false"},
		{"1 isnull", "boolean false"},
		{"2 notnull", "boolean true"},
		{"9223372036854775807 + 1", "error: bigint add out of range"},
		{"-9223372036854775808", "int -9223372036854775808"},
		{"-9223372036854775808 / -1", "error: bigint div out of range"},
		{"-9223372036854775808 % -1", "int 0"},
		{"5 / 0", "error: division by zero"},
		{"5.0 / 0", "double Infinity"},
		{"5 % 0", "error: division by zero"},
		{"mod(7,-3)", "int 1"},
		{"-7 % 3", "int -1"},
		{"abs(-5.5)", "double 5.5"},
		{"double(3)", "double 3"},
		{"int(-0.5)", "int 0"},
		{"greatest(1, 2.5, 2)", "double 2.5"},
		{"least(3, 1, 2)", "int 1"},
		{"greatest(1)", "int 1"},
		{"least(true, 1)", "error: cannot coerce boolean to int"},
		{"1 + true", "error: cannot coerce boolean to int"},
		{"sqrt(-1)", "double NaN"},
		{"ln(0)", "double -Infinity"},
		{"exp(1)", "double 2.71828182845905"},
		{"pow(2, 10)", "double 1024"},
		{"power(2, 0.5)", "double 1.4142135623731"},
		{"1.0 / 3", "double 0.333333333333333"},
		{"1e20", "double 1e+20"},
		{"100000000000000000.0", "double 1e+17"},
		{"0.1 + 0.2", "double 0.3"},
		{"1 < 2", "boolean true"},
		{"2 >= 2", "boolean true"},
		{"3 <> 3", "boolean false"},
		{"3 != 4", "boolean true"},
		{"~5", "int -6"},
		{"5 & 3", "int 1"},
		{"5 | 3", "int 7"},
		{"hash(10, 0)", "int -7188666914263997357"},
		{"hash_fnv1a(10, 5432)", "int -7793829335365542153"},
		{"hash_murmur2(10, 5432)", "int -5817877081768721676"},
		{"hash_fnv1a(0, 0)", "int -6284781860667377211"},
		{"hash_murmur2(0, 0)", "int 8217090173679840641"},
		{"hash_murmur2(-1, 123)", "int 724409956589257340"},
		{"hash_fnv1a(-1, 123)", "int 2605866718809522070"},
		{"hash_fnv1a(9223372036854775807, -1)", "int 9116682525541297170"},
		{"permute(0, 0)", "error: permute size parameter must be greater than zero"},
		{"permute(5, 1)", "int 0"},
		{"random(5, 1)", "error: empty range given to random"},
		{"random(-9223372036854775808, 9223372036854775807)", "error: random range is too large"},
		{"random_exponential(1, 10, 0)", "error: exponential parameter must be greater than zero (not 0.000000)"},
		{"random_gaussian(1, 10, 1.9)", "error: gaussian parameter must be at least 2.000000 (not 1.900000)"},
		{"random_zipfian(1, 10, 1)", "error: zipfian parameter must be in range [1.001, 1000] (not 1.000000)"},
		{"random_zipfian(1, 10, 1000.1)", "error: zipfian parameter must be in range [1.001, 1000] (not 1000.100000)"},
		{"random(1, 1)", "int 1"},
		{"CASE WHEN 1=1 THEN 2 ELSE 3 END", "int 2"},
		{"NOT TRUE", "boolean false"},
		{"not 1", "error: cannot coerce int to boolean"},
		{"true and 1", "error: cannot coerce int to boolean"},
		{"true = true", "error: cannot coerce boolean to int"},
		{"null = 1", "null"},
		{"null + 1", "null"},
		{"1.", "double 1"},
		{".5", "double 0.5"},
		{"1e5", "double 100000"},
		{"int(true)", "error: cannot coerce boolean to int"},
		{"double(null)", "null"},
		{"-(1.5)", "double -1.5"},
		{"- -3", "int 3"},
		{"+3", "int 3"},
		{"2 * 3 + 4 * 5 = 26 and 1 < 2", "boolean true"},
		{"4 - 2 - 1", "int 1"},
		{"2 - -2", "int 4"},
		{"1 | 2 + 1", "int 3"},
		{"3 + 1 << 1", "int 8"},
		{"not true = false", "error: cannot coerce boolean to int"},
		{"true is not false", "boolean true"},
		{"false is null", "boolean false"},
		{"null is not true", "boolean true"},
		{"permute(-1, 10, 1)", "int 3"},
		{"mod(5.5, 2)", "int 0"},
		{"5 % 2.0", "int 1"},
		{"1 & 1.0", "int 1"},
		{"sqrt(4)", "double 2"},
		{"ln(-1)", "double NaN"},
		{"exp(1000)", "double Infinity"},
		{"1e308 * 10", "double Infinity"},
		{"9223372036854775807 * 2", "error: bigint mul out of range"},
		{"-9223372036854775807 - 2", "error: bigint sub out of range"},
		{"int(9223372036854775807.0)", "error: double to int overflow for 9223372036854775808.000000"},
		{"int(-9223372036854775808.0)", "int -9223372036854775808"},
		{"null and (1/0 = 1)", "null"},
		{"false and (1/0=1)", "boolean false"},
		{"true or (1/0=1)", "boolean true"},
		{"null or (1/0=1)", "null"},
		{"abs(null)", "null"},
		{"permute(0, 10, 1)", "int 5"},
		{"permute(1, 10, 1)", "int 6"},
		{"permute(2, 10, 1)", "int 9"},
		{"permute(7, 100, 42)", "int 20"},
		{"permute(12345, 1000000, -5)", "int 631748"},
		{"permute(3, 2, 0)", "int 1"},
		{"permute(3, 3, 7)", "int 0"},
		{"permute(9223372036854775807, 9223372036854775807, 3)", "int 1672023278835953913"},
		{"case when null then 1 when 2 = 2 then 3 end", "int 3"},
		{"1 isnull isnull", "boolean false"},
		{"least(1.5, null)", "null"},
		{"int(2.5)", "int 2"},
		{"int(3.5)", "int 4"},
		{"int(-3.5)", "int -4"},
		{"random_zipfian(5,4,2)", "error: empty range given to random"},
		{"random(-9223372036854775808, 0)", "error: random range is too large"},
		{"HASH(1, 7)", "int -8123251712474194501"},
		{"Pi()", "double 3.14159265358979"},
		{"TRUE AND FALSE", "boolean false"},
		{"1e-3", "double 0.001"},
		{"1.5E+3", "double 1500"},
		{"5 % -2", "int 1"},
		{"abs(-9223372036854775808)", "int -9223372036854775808"},
		{"- 9223372036854775808", "int -9223372036854775808"},
		{"0.0 * -1", "double -0"},
		{"-0.0", "double 0"},
		{"(2 > 1) is true", "boolean true"},
		{"not false and false", "boolean false"},
		{"true or false and false", "boolean true"},
		{"not 1 = 2", "boolean true"},
		{"5 * -2 / 3", "int -3"},
		{"7 / 2 * 2", "int 6"},
		{"1 - 2 * 3", "int -5"},
		{"2 > 1 or 1/0 = 0", "boolean true"},
		{"1 < 2 = true", "error: syntax error"},
		{"greatest(1, 9223372036854775807)", "int 9223372036854775807"},
		{"least(-1e300, 3)", "double -1e+300"},
		{"double(1) / 3 * 3", "double 1"},
		{"1000000 * 1000000 * 1000000", "int 1000000000000000000"},
		{"permute(123456789, 1000003, 99)", "int 803804"},
		{"permute(17, 17, 17)", "int 14"},
		{"permute(4, 5, 0)", "int 3"},
		{"permute(100, 128, 1)", "int 79"},
		{"permute(6, 7, 123456)", "int 5"},
	} {
		t.Run(c.expr, func(t *testing.T) {
			if got := evalText(c.expr, newTestEnv(map[string]string{"default_seed": "7"})); got != c.want {
				t.Errorf("%s = %q, want %q", c.expr, got, c.want)
			}
		})
	}
}
