package docolap

import (
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// PostgreSQL: doc->'a'->>'b' (jsondoc's); names ordered in the "C"
// collation.
func init() {
	pg := jsondoc.MustSQL(engine.KindPostgres)
	avg := func(x string) string { return "avg(" + x + ")" }
	sqlDialects.Register(engine.KindPostgres, sqlDialect{
		json: jsonOf(pg, avg),
		norm: normSQL{byName: pg.Name, avg: avg},
	})
}
