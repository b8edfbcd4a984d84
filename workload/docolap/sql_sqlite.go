package docolap

import (
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// SQLite: json_extract (jsondoc's); the BINARY collation is byte order
// already.
func init() {
	lite := jsondoc.MustSQL(engine.KindSQLite)
	avg := func(x string) string { return "avg(" + x + ")" }
	sqlDialects.Register(engine.KindSQLite, sqlDialect{
		json: jsonOf(lite, avg),
		norm: normSQL{byName: lite.ByName, avg: avg},
	})
}
