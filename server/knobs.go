package server

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// LooseMatches tells whether a knob's value is what a server reports for
// it in a plain list of settings (MariaDB's SHOW GLOBAL VARIABLES,
// PgBouncer's SHOW CONFIG): the same text without regard to case, the
// same size (64M is 67108864), the same boolean (ON is 1), or the same
// comma-separated set (sql_mode).
func LooseMatches(want, got string) bool {
	want, got = Unquote(want), strings.TrimSpace(got)
	if strings.EqualFold(want, got) {
		return true
	}
	if w, ok := parseSize(want); ok {
		if g, ok := parseSize(got); ok {
			return CloseTo(w, g, 0)
		}
	}
	if w, ok := ParseBool(want); ok {
		if g, ok := ParseBool(got); ok {
			return w == g
		}
	}
	if strings.Contains(want, ",") || strings.Contains(got, ",") {
		return slices.Equal(itemSet(want), itemSet(got))
	}
	return false
}

// Unquote strips a knob's value of blanks and one pair of single or
// double quotes.
func Unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return s
}

// SplitNumber splits a value such as "1GB", "1.5 GB" or "-1" into its
// number and unit ("" for none); ok is false when it does not start with
// a number.
func SplitNumber(s string) (n float64, unit string, ok bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '-' || s[i] == '+' || (i > 0 && (s[i] == 'e' || s[i] == 'E') && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '-'))) {
		i++
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, "", false
	}
	return n, strings.TrimSpace(s[i:]), true
}

// parseSize reads MariaDB's and PgBouncer's numbers: a plain number, or
// one with a K, M, G, T, P or E suffix (powers of 1024).
func parseSize(s string) (float64, bool) {
	n, unit, ok := SplitNumber(s)
	if !ok {
		return 0, false
	}
	if unit == "" {
		return n, true
	}
	i := strings.IndexByte("KMGTPE", strings.ToUpper(unit)[0])
	if len(unit) != 1 || i < 0 {
		return 0, false
	}
	return n * math.Pow(1024, float64(i+1)), true
}

// ParseBool reads the booleans servers take in their settings: on, off,
// true, false, yes, no, 1, 0 and unambiguous prefixes (PostgreSQL), ON,
// OFF, 1, 0 (MariaDB), in any case. ok is false for anything else.
func ParseBool(s string) (v, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "1":
		return true, true
	case s == "0":
		return false, true
	case s == "on":
		return true, true
	case len(s) >= 2 && strings.HasPrefix("off", s):
		return false, true
	case s != "" && strings.HasPrefix("true", s), s != "" && strings.HasPrefix("yes", s):
		return true, true
	case s != "" && strings.HasPrefix("false", s), s != "" && strings.HasPrefix("no", s):
		return false, true
	}
	return false, false
}

// CloseTo tells whether a and b differ by at most tol (and by a relative
// 1e-9, for floating-point noise).
func CloseTo(a, b, tol float64) bool {
	d := math.Abs(a - b)
	return d <= tol || d <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func itemSet(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
