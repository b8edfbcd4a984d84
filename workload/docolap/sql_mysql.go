package docolap

import (
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// MySQL and MariaDB: JSON_UNQUOTE(JSON_EXTRACT()) (jsondoc's), names
// ordered as BINARY. AVG of a DOUBLE: the average of integers as DECIMAL
// would be rounded to four places by the server.
func init() {
	my := jsondoc.MustSQL(engine.KindMySQL)
	avg := func(x string) string { return "AVG(CAST(" + x + " AS DOUBLE))" }
	sqlDialects.Register(engine.KindMySQL, sqlDialect{
		json: jsonOf(my, avg),
		norm: normSQL{byName: my.ByName, avg: avg},
	})
}
