package docolap

import (
	"strings"

	"github.com/dbarena/dbarena/engine"
)

// PostgreSQL: doc->'a'->>'b'; names ordered in the "C" collation (byte
// order), whatever the database's default.
func init() {
	sqlDialects.Register(engine.KindPostgres, sqlDialect{
		json: jsonSQL{
			text:   func(p ...string) string { return pgArrows(p) },
			num:    func(p ...string) string { return "(" + pgArrows(p) + ")::bigint" },
			avg:    func(x string) string { return "avg(" + x + ")" },
			name:   func(x string) string { return x + ` COLLATE "C"` },
			byName: same,
		},
		norm: normSQL{
			byName: func(c string) string { return c + ` COLLATE "C"` },
			avg:    func(c string) string { return "avg(" + c + ")" },
		},
	})
}

// pgArrows is the text at path in doc: doc->'a'->>'b'.
func pgArrows(path []string) string {
	var b strings.Builder
	b.WriteString("doc")
	for i, p := range path {
		if i == len(path)-1 {
			b.WriteString("->>")
		} else {
			b.WriteString("->")
		}
		b.WriteString("'" + p + "'")
	}
	return b.String()
}
