package docolap

import (
	"strings"

	"github.com/dbarena/dbarena/engine"
)

// MySQL and MariaDB. MariaDB 10.11 has no -> or ->> (they came in 13.1):
// the expressions of the generated columns that the path keys' indexes
// are built on, which MySQL 8 and MariaDB 11.8+ substitute with the
// indexed columns. The JSON functions' results are utf8mb4_bin already;
// BINARY makes the order bytewise anyway. AVG of a DOUBLE: the average of
// integers as DECIMAL would be rounded to four places by the server.
func init() {
	sqlDialects.Register(engine.KindMySQL, sqlDialect{
		json: jsonSQL{
			text:   func(p ...string) string { return myPath(p) },
			num:    func(p ...string) string { return "CAST(" + myPath(p) + " AS SIGNED)" },
			avg:    myAvg,
			name:   same,
			byName: myBinary,
		},
		norm: normSQL{byName: myBinary, avg: myAvg},
	})
}

// myPath is the text at path in doc.
func myPath(path []string) string {
	return "JSON_UNQUOTE(JSON_EXTRACT(doc, '$." + strings.Join(path, ".") + "'))"
}

func myAvg(x string) string    { return "AVG(CAST(" + x + " AS DOUBLE))" }
func myBinary(c string) string { return "BINARY " + c }
