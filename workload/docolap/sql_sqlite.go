package docolap

import (
	"strings"

	"github.com/dbarena/dbarena/engine"
)

// SQLite: json_extract, as the expression indexes; the BINARY collation
// is byte order already.
func init() {
	sqlDialects.Register(engine.KindSQLite, sqlDialect{
		json: jsonSQL{
			text:   func(p ...string) string { return litePath(p) },
			num:    func(p ...string) string { return litePath(p) },
			avg:    liteAvg,
			name:   same,
			byName: same,
		},
		norm: normSQL{byName: same, avg: liteAvg},
	})
}

// litePath is the value at path in doc.
func litePath(path []string) string {
	return "json_extract(doc, '$." + strings.Join(path, ".") + "')"
}

func liteAvg(x string) string { return "avg(" + x + ")" }
