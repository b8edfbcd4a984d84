package postgres

import (
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/server"
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
	want = server.Unquote(want)
	switch s.vartype {
	case "bool":
		w, ok1 := server.ParseBool(want)
		g, ok2 := server.ParseBool(s.setting)
		return ok1 && ok2 && w == g
	case "integer", "real":
		got, err := strconv.ParseFloat(s.setting, 64)
		if err != nil {
			return false
		}
		n, unit, ok := server.SplitNumber(want)
		if !ok {
			return false
		}
		if unit == "" && n == -1 && s.minVal == "-1" {
			return true
		}
		if s.unit == "" {
			return unit == "" && server.CloseTo(n, got, 0)
		}
		f, cat, ok := unitFactor(s.unit)
		if !ok {
			return unit == "" && server.CloseTo(n, got, 0)
		}
		w := n * f
		if unit != "" {
			uf, ucat, ok := unitFactor(unit)
			if !ok || ucat != cat {
				return false
			}
			w = n * uf
		}
		return server.CloseTo(w, got*f, f/2)
	case "enum":
		return strings.EqualFold(want, s.setting)
	}
	return strings.EqualFold(squeezeCommas(want), squeezeCommas(s.setting))
}

// unitFactor turns a pg_settings unit ("8kB", "MB", "ms") or a value's
// unit into bytes or milliseconds and says which of the two it is.
func unitFactor(u string) (float64, string, bool) {
	n, name, ok := server.SplitNumber(u)
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

func squeezeCommas(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return strings.Join(parts, ",")
}
