package jsondoc

import (
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/byengine"
)

// SQL is one SQL engine's expressions on a JSON column. Text and Num are
// the very expressions the engine indexes a path key with (as engine's
// schema renderers write them, Text for a text key, Num for a BigInt
// one), so that a planner that matches expressions can use the index.
type SQL struct {
	// Text is the text at path in column col; Num the integer there.
	Text, Num func(col string, path ...string) string
	// Name is a selected name, ByName orders by it: together they sort
	// names in byte order.
	Name, ByName func(s string) string
	// Div is the integer quotient of two integer expressions.
	Div func(a, b string) string
}

// sqlParts are the SQL engines' expressions.
var sqlParts = byengine.Registry[SQL]{What: "JSON document expressions"}

// SQLFor returns the expressions of SQL engine kind (the dialect's
// Capabilities().Kind).
func SQLFor(kind engine.Kind) (SQL, error) {
	s, err := sqlParts.For(kind)
	if err != nil {
		return SQL{}, fmt.Errorf("jsondoc: %w", err)
	}
	return s, nil
}

// MustSQL is SQLFor for a kind registered here (postgres, mysql,
// sqlite); it panics on another, a programming error.
func MustSQL(kind engine.Kind) SQL {
	s, err := SQLFor(kind)
	if err != nil {
		panic(err)
	}
	return s
}

func same(s string) string { return s }

// PostgreSQL: col->'a'->>'b'; names ordered in the "C" collation (byte
// order), whatever the database's default.
func init() {
	sqlParts.Register(engine.KindPostgres, SQL{
		Text:   pgArrows,
		Num:    func(col string, p ...string) string { return "(" + pgArrows(col, p...) + ")::bigint" },
		Name:   func(x string) string { return x + ` COLLATE "C"` },
		ByName: same,
		Div:    func(a, b string) string { return "(" + a + ") / " + b },
	})
}

func pgArrows(col string, path ...string) string {
	var b strings.Builder
	b.WriteString(col)
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

// MySQL and MariaDB. MariaDB 10.11 has no -> or ->> (they came in 13.1):
// the expressions of the generated columns that the path keys' indexes
// are built on, which MySQL 8 and MariaDB 11.8+ substitute with the
// indexed columns. The JSON functions' results are utf8mb4_bin already;
// BINARY makes the order bytewise anyway.
func init() {
	sqlParts.Register(engine.KindMySQL, SQL{
		Text:   myPath,
		Num:    func(col string, p ...string) string { return "CAST(" + myPath(col, p...) + " AS SIGNED)" },
		Name:   same,
		ByName: func(c string) string { return "BINARY " + c },
		Div:    func(a, b string) string { return "(" + a + ") DIV " + b },
	})
}

func myPath(col string, path ...string) string {
	return "JSON_UNQUOTE(JSON_EXTRACT(" + col + ", '$." + strings.Join(path, ".") + "'))"
}

// SQLite: json_extract, as the expression indexes (an integer stays an
// integer); the BINARY collation is byte order already.
func init() {
	sqlParts.Register(engine.KindSQLite, SQL{
		Text:   litePath,
		Num:    litePath,
		Name:   same,
		ByName: same,
		Div:    func(a, b string) string { return "(" + a + ") / " + b },
	})
}

func litePath(col string, path ...string) string {
	return "json_extract(" + col + ", '$." + strings.Join(path, ".") + "')"
}
