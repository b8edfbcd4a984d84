package docolap

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mysql"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/engine/sqlite"
)

// goldenSQL are the queries' texts per SQL engine.
var goldenSQL = map[engine.Kind]map[string]string{
	engine.KindPostgres: {
		"A":  `SELECT doc->'repo'->>'name' COLLATE "C" AS repo, count(*) AS n FROM events WHERE doc->>'type' = 'IssuesEvent' AND doc->'payload'->>'action' = 'opened' GROUP BY repo ORDER BY n DESC, repo`,
		"B":  `SELECT doc->>'type' COLLATE "C" AS type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC, type`,
		"C":  `SELECT doc->'actor'->>'login' COLLATE "C" AS login, count(*) AS n FROM events GROUP BY login ORDER BY n DESC, login LIMIT 10`,
		"D":  `SELECT doc->'repo'->>'name' COLLATE "C" AS repo, avg((doc->'payload'->'issue'->>'comments')::bigint) AS comments FROM events WHERE doc->>'type' = 'PushEvent' AND (doc->'payload'->'issue'->>'comments')::bigint > 2 GROUP BY repo ORDER BY comments DESC, repo`,
		"D2": `SELECT doc->'repo'->>'name' COLLATE "C" AS repo, avg((doc->'payload'->'issue'->>'comments')::bigint) AS comments FROM events WHERE doc->>'type' = 'IssueCommentEvent' AND (doc->'payload'->'issue'->>'comments')::bigint > 2 GROUP BY repo ORDER BY comments DESC, repo`,
	},
	engine.KindMySQL: {
		"A":  `SELECT JSON_UNQUOTE(JSON_EXTRACT(doc, '$.repo.name')) AS repo, count(*) AS n FROM events WHERE JSON_UNQUOTE(JSON_EXTRACT(doc, '$.type')) = 'IssuesEvent' AND JSON_UNQUOTE(JSON_EXTRACT(doc, '$.payload.action')) = 'opened' GROUP BY repo ORDER BY n DESC, BINARY repo`,
		"B":  `SELECT JSON_UNQUOTE(JSON_EXTRACT(doc, '$.type')) AS type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC, BINARY type`,
		"C":  `SELECT JSON_UNQUOTE(JSON_EXTRACT(doc, '$.actor.login')) AS login, count(*) AS n FROM events GROUP BY login ORDER BY n DESC, BINARY login LIMIT 10`,
		"D":  `SELECT JSON_UNQUOTE(JSON_EXTRACT(doc, '$.repo.name')) AS repo, AVG(CAST(CAST(JSON_UNQUOTE(JSON_EXTRACT(doc, '$.payload.issue.comments')) AS SIGNED) AS DOUBLE)) AS comments FROM events WHERE JSON_UNQUOTE(JSON_EXTRACT(doc, '$.type')) = 'PushEvent' AND CAST(JSON_UNQUOTE(JSON_EXTRACT(doc, '$.payload.issue.comments')) AS SIGNED) > 2 GROUP BY repo ORDER BY comments DESC, BINARY repo`,
		"D2": `SELECT JSON_UNQUOTE(JSON_EXTRACT(doc, '$.repo.name')) AS repo, AVG(CAST(CAST(JSON_UNQUOTE(JSON_EXTRACT(doc, '$.payload.issue.comments')) AS SIGNED) AS DOUBLE)) AS comments FROM events WHERE JSON_UNQUOTE(JSON_EXTRACT(doc, '$.type')) = 'IssueCommentEvent' AND CAST(JSON_UNQUOTE(JSON_EXTRACT(doc, '$.payload.issue.comments')) AS SIGNED) > 2 GROUP BY repo ORDER BY comments DESC, BINARY repo`,
	},
	engine.KindSQLite: {
		"A":  `SELECT json_extract(doc, '$.repo.name') AS repo, count(*) AS n FROM events WHERE json_extract(doc, '$.type') = 'IssuesEvent' AND json_extract(doc, '$.payload.action') = 'opened' GROUP BY repo ORDER BY n DESC, repo`,
		"B":  `SELECT json_extract(doc, '$.type') AS type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC, type`,
		"C":  `SELECT json_extract(doc, '$.actor.login') AS login, count(*) AS n FROM events GROUP BY login ORDER BY n DESC, login LIMIT 10`,
		"D":  `SELECT json_extract(doc, '$.repo.name') AS repo, avg(json_extract(doc, '$.payload.issue.comments')) AS comments FROM events WHERE json_extract(doc, '$.type') = 'PushEvent' AND json_extract(doc, '$.payload.issue.comments') > 2 GROUP BY repo ORDER BY comments DESC, repo`,
		"D2": `SELECT json_extract(doc, '$.repo.name') AS repo, avg(json_extract(doc, '$.payload.issue.comments')) AS comments FROM events WHERE json_extract(doc, '$.type') = 'IssueCommentEvent' AND json_extract(doc, '$.payload.issue.comments') > 2 GROUP BY repo ORDER BY comments DESC, repo`,
	},
}

func TestSQLGolden(t *testing.T) {
	for eng, qs := range goldenSQL {
		for _, q := range Queries() {
			got, err := SQL(eng, q.Name)
			if err != nil {
				t.Fatal(err)
			}
			if got != qs[q.Name] {
				t.Errorf("%s %s:\n got %s\nwant %s", eng, q.Name, got, qs[q.Name])
			}
		}
	}
	if _, err := SQL("oracle", "A"); err == nil {
		t.Error("a query for an unknown engine")
	}
	if _, err := SQL(engine.KindPostgres, "E"); err == nil || !strings.Contains(err.Error(), "A,B,C,D,D2") {
		t.Errorf("unknown query: %v", err)
	}
}

// TestQueriesUseIndexedExpressions checks that every JSON expression the
// queries filter or group on is, character for character, the
// expression the engine builds the path key's index on (PostgreSQL and
// SQLite expression indexes, MySQL/MariaDB generated columns): planners
// match an index only to the identical expression.
func TestQueriesUseIndexedExpressions(t *testing.T) {
	for _, d := range []engine.SQLDialect{postgres.Dialect{}, mysql.Dialect{}, sqlite.Dialect{}} {
		r := d.(engine.SchemaRenderer)
		ddl := strings.Join(append(r.CreateTableSQL(Declared()), r.AfterLoadSQL(Declared())...), "\n")
		part, err := dialectFor(d.Capabilities().Kind)
		if err != nil {
			t.Fatal(err)
		}
		j := part.json
		for _, x := range []string{j.text("type"), j.text("payload", "action"), j.text("repo", "name"),
			j.text("actor", "login"), j.num("payload", "issue", "comments")} {
			if !strings.Contains(ddl, x) {
				t.Errorf("%s: %s is not indexed:\n%s", d.Name(), x, ddl)
			}
		}
	}
}

// TestFormat checks how values read from the engines are written: the
// average of every engine's type alike, to four decimals.
func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		k    Kind
		v    any
		want string
	}{
		{Count, int64(42), "42"}, {Count, int32(42), "42"}, {Count, "42", "42"}, {Count, float64(42), "42"},
		{Average, float64(10) / 3, "3.3333"}, {Average, "3.3333333333333333", "3.3333"}, {Average, []byte("3.50000"), "3.5000"},
		{Average, int64(3), "3.0000"}, {Text, []byte("a/b"), "a/b"}, {Text, "x", "x"},
	} {
		got, err := Format(tc.k, tc.v)
		if err != nil || got != tc.want {
			t.Errorf("Format(%v, %#v) = %q, %v; want %q", tc.k, tc.v, got, err, tc.want)
		}
	}
	if _, err := Format(Count, nil); err == nil {
		t.Error("NULL formatted")
	}
}
