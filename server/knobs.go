package server

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// pgSetting is one row of pg_settings.
type pgSetting struct {
	name, setting, unit, vartype, minVal string
	shown                                string // current_setting(name), as SHOW prints it
}

// memoryUnits and timeUnits are PostgreSQL's units, in bytes and
// milliseconds.
var (
	memoryUnits = map[string]float64{"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
	timeUnits   = map[string]float64{"us": 0.001, "ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000, "d": 86_400_000}
)

// pgMatches tells whether a knob's value, as written in postgresql.conf,
// is what the server reports in pg_settings. Numbers with units are
// compared in bytes or milliseconds, within the setting's own unit (the
// server rounds to it: shared_buffers=1GB is 131072 of 8kB); -1, where it
// means "choose for me", takes whatever the server chose; booleans take
// every spelling PostgreSQL does; enums and strings compare without
// regard to case (strings also without blanks around commas).
func pgMatches(want string, s pgSetting) bool {
	want = unquote(want)
	switch s.vartype {
	case "bool":
		w, ok1 := parseBool(want)
		g, ok2 := parseBool(s.setting)
		return ok1 && ok2 && w == g
	case "integer", "real":
		got, err := strconv.ParseFloat(s.setting, 64)
		if err != nil {
			return false
		}
		n, unit, ok := splitNumber(want)
		if !ok {
			return false
		}
		if unit == "" && n == -1 && s.minVal == "-1" {
			return true
		}
		if s.unit == "" {
			return unit == "" && closeTo(n, got, 0)
		}
		f, cat, ok := unitFactor(s.unit)
		if !ok {
			return unit == "" && closeTo(n, got, 0)
		}
		w := n * f
		if unit != "" {
			uf, ucat, ok := unitFactor(unit)
			if !ok || ucat != cat {
				return false
			}
			w = n * uf
		}
		return closeTo(w, got*f, f/2)
	case "enum":
		return strings.EqualFold(want, s.setting)
	}
	return strings.EqualFold(squeezeCommas(want), squeezeCommas(s.setting))
}

// looseMatches tells whether a knob's value is what MariaDB (SHOW GLOBAL
// VARIABLES) or PgBouncer (SHOW CONFIG) reports: the same text without
// regard to case, the same size (64M is 67108864), the same boolean (ON is
// 1), or the same comma-separated set (sql_mode).
func looseMatches(want, got string) bool {
	want, got = unquote(want), strings.TrimSpace(got)
	if strings.EqualFold(want, got) {
		return true
	}
	if w, ok := parseSize(want); ok {
		if g, ok := parseSize(got); ok {
			return closeTo(w, g, 0)
		}
	}
	if w, ok := parseBool(want); ok {
		if g, ok := parseBool(got); ok {
			return w == g
		}
	}
	if strings.Contains(want, ",") || strings.Contains(got, ",") {
		return slices.Equal(itemSet(want), itemSet(got))
	}
	return false
}

// unquote strips blanks and one pair of single or double quotes.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return s
}

// splitNumber splits "1GB", "1.5 GB", "-1" into number and unit.
func splitNumber(s string) (float64, string, bool) {
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

// unitFactor turns a pg_settings unit ("8kB", "MB", "ms") or a value's
// unit into bytes or milliseconds and says which of the two it is.
func unitFactor(u string) (float64, string, bool) {
	n, name, ok := splitNumber(u)
	if !ok {
		n, name = 1, u
	}
	if f, ok := memoryUnits[name]; ok {
		return n * f, "memory", true
	}
	if f, ok := timeUnits[name]; ok {
		return n * f, "time", true
	}
	return 0, "", false
}

// parseSize reads MariaDB's and PgBouncer's numbers: a plain number, or
// one with a K, M, G, T, P or E suffix (powers of 1024).
func parseSize(s string) (float64, bool) {
	n, unit, ok := splitNumber(s)
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

// parseBool reads the booleans of PostgreSQL (on, off, true, false, yes,
// no, 1, 0 and unambiguous prefixes) and MariaDB (ON, OFF, 1, 0).
func parseBool(s string) (bool, bool) {
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

// closeTo tells whether a and b differ by at most tol (and by a relative
// 1e-9, for floating-point noise).
func closeTo(a, b, tol float64) bool {
	d := math.Abs(a - b)
	return d <= tol || d <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func squeezeCommas(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return strings.Join(parts, ",")
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
