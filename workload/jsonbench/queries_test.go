package jsonbench_test

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mysql"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/workload/jsonbench"
)

// goldenPostgres pins the queries' text on PostgreSQL.
var goldenPostgres = map[string]string{
	jsonbench.Q1: `SELECT data->'commit'->>'collection' COLLATE "C" AS event, count(*) AS n FROM bluesky GROUP BY event ORDER BY n DESC, COALESCE(data->'commit'->>'collection' COLLATE "C", '')`,
	jsonbench.Q2: `SELECT data->'commit'->>'collection' COLLATE "C" AS event, count(*) AS n, count(DISTINCT data->>'did') AS users FROM bluesky WHERE data->>'kind' = 'commit' AND data->'commit'->>'operation' = 'create' GROUP BY event ORDER BY n DESC, event`,
	jsonbench.Q3: `SELECT data->'commit'->>'collection' COLLATE "C" AS event, ((data->>'time_us')::bigint) / 3600000000 % 24 AS hour_of_day, count(*) AS n FROM bluesky WHERE data->>'kind' = 'commit' AND data->'commit'->>'operation' = 'create' AND data->'commit'->>'collection' IN ('app.bsky.feed.post', 'app.bsky.feed.repost', 'app.bsky.feed.like') GROUP BY event, hour_of_day ORDER BY hour_of_day, event`,
	jsonbench.Q4: `SELECT data->>'did' COLLATE "C" AS user_id, min((data->>'time_us')::bigint) AS first_post_ts FROM bluesky WHERE data->>'kind' = 'commit' AND data->'commit'->>'operation' = 'create' AND data->'commit'->>'collection' = 'app.bsky.feed.post' GROUP BY user_id ORDER BY first_post_ts, user_id LIMIT 3`,
	jsonbench.Q5: `SELECT data->>'did' COLLATE "C" AS user_id, max((data->>'time_us')::bigint) - min((data->>'time_us')::bigint) AS activity_span FROM bluesky WHERE data->>'kind' = 'commit' AND data->'commit'->>'operation' = 'create' AND data->'commit'->>'collection' = 'app.bsky.feed.post' GROUP BY user_id ORDER BY activity_span DESC, user_id LIMIT 3`,
}

// TestSQLGolden pins the PostgreSQL text of Q1–Q5 and refuses an
// unknown engine or query, naming the known ones.
func TestSQLGolden(t *testing.T) {
	for _, q := range jsonbench.Queries() {
		got, err := jsonbench.SQL(engine.KindPostgres, q.Name)
		if err != nil || got != goldenPostgres[q.Name] {
			t.Errorf("%s: %v\n got %s\nwant %s", q.Name, err, got, goldenPostgres[q.Name])
		}
	}
	if _, err := jsonbench.SQL("oracle", jsonbench.Q1); err == nil {
		t.Error("a query for an unknown engine")
	}
	if _, err := jsonbench.SQL(engine.KindPostgres, "Q6"); err == nil || !strings.Contains(err.Error(), "Q1,Q2,Q3,Q4,Q5") {
		t.Errorf("unknown query: %v", err)
	}
}

// TestQueriesUseIndexedExpressions checks, on PostgreSQL, MySQL/MariaDB
// and SQLite, that every path the queries filter or group on is,
// character for character, an expression of the engine's bluesky_idx
// (expression index or generated column): planners match an index only
// to the identical expression.
func TestQueriesUseIndexedExpressions(t *testing.T) {
	paths := map[engine.Kind][]string{
		engine.KindPostgres: {`data->>'kind'`, `data->'commit'->>'operation'`, `data->'commit'->>'collection'`, `data->>'did'`, `(data->>'time_us')::bigint`},
		engine.KindMySQL: {`JSON_UNQUOTE(JSON_EXTRACT(data, '$.kind'))`, `JSON_UNQUOTE(JSON_EXTRACT(data, '$.commit.operation'))`,
			`JSON_UNQUOTE(JSON_EXTRACT(data, '$.commit.collection'))`, `JSON_UNQUOTE(JSON_EXTRACT(data, '$.did'))`,
			`CAST(JSON_UNQUOTE(JSON_EXTRACT(data, '$.time_us')) AS SIGNED)`},
		engine.KindSQLite: {`json_extract(data, '$.kind')`, `json_extract(data, '$.commit.operation')`, `json_extract(data, '$.commit.collection')`,
			`json_extract(data, '$.did')`, `json_extract(data, '$.time_us')`},
	}
	for _, d := range []engine.SQLDialect{postgres.Dialect{}, mysql.Dialect{}, sqlite.Dialect{}} {
		r := d.(engine.SchemaRenderer)
		ddl := strings.Join(append(r.CreateTableSQL(jsonbench.Declared()), r.AfterLoadSQL(jsonbench.Declared())...), "\n")
		var all string
		for _, q := range jsonbench.Queries() {
			s, err := jsonbench.SQL(d.Capabilities().Kind, q.Name)
			if err != nil {
				t.Fatal(err)
			}
			all += s + "\n"
		}
		for _, x := range paths[d.Capabilities().Kind] {
			if !strings.Contains(ddl, x) {
				t.Errorf("%s: %s is not indexed:\n%s", d.Name(), x, ddl)
			}
			if !strings.Contains(all, x) {
				t.Errorf("%s: no query reads %s", d.Name(), x)
			}
		}
	}
}
