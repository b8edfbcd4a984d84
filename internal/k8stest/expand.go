//go:build k8s

package k8stest

import "strings"

// Expand replaces each $(NAME) in s by NAME's value when lookup defines
// NAME, the way the kubelet expands a container's command, args and env
// values: $$ stands for a literal $, and $(NAME) of an undefined NAME, a $(
// without a closing parenthesis and a $ before any other character (or at
// the end) stay as written. NAME is everything up to the next ')'.
func Expand(s string, lookup func(name string) (string, bool)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := s[i+2 : i+2+end]
			if v, ok := lookup(name); ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// mapLookup is a lookup for Expand over vars.
func mapLookup(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}
