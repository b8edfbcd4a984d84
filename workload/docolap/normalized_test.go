package docolap

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mysql"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
)

// goldenNormSQL are the normalized queries' texts per SQL engine.
var goldenNormSQL = map[engine.Kind]map[string]string{
	engine.KindPostgres: {
		"A":  `SELECT repo_name AS repo, count(*) AS n FROM norm_events WHERE type = 'IssuesEvent' AND action = 'opened' GROUP BY repo_name ORDER BY n DESC, repo_name COLLATE "C"`,
		"B":  `SELECT type, count(*) AS n FROM norm_events GROUP BY type ORDER BY n DESC, type COLLATE "C"`,
		"C":  `SELECT actor_login AS login, count(*) AS n FROM norm_events GROUP BY actor_login ORDER BY n DESC, actor_login COLLATE "C" LIMIT 10`,
		"D":  `SELECT repo_name AS repo, avg(issue_comments) AS comments FROM norm_events WHERE type = 'PushEvent' AND issue_comments > 2 GROUP BY repo_name ORDER BY comments DESC, repo_name COLLATE "C"`,
		"D2": `SELECT repo_name AS repo, avg(issue_comments) AS comments FROM norm_events WHERE type = 'IssueCommentEvent' AND issue_comments > 2 GROUP BY repo_name ORDER BY comments DESC, repo_name COLLATE "C"`,
	},
	engine.KindMySQL: {
		"A":  `SELECT repo_name AS repo, count(*) AS n FROM norm_events WHERE type = 'IssuesEvent' AND action = 'opened' GROUP BY repo_name ORDER BY n DESC, BINARY repo_name`,
		"B":  `SELECT type, count(*) AS n FROM norm_events GROUP BY type ORDER BY n DESC, BINARY type`,
		"C":  `SELECT actor_login AS login, count(*) AS n FROM norm_events GROUP BY actor_login ORDER BY n DESC, BINARY actor_login LIMIT 10`,
		"D":  `SELECT repo_name AS repo, AVG(CAST(issue_comments AS DOUBLE)) AS comments FROM norm_events WHERE type = 'PushEvent' AND issue_comments > 2 GROUP BY repo_name ORDER BY comments DESC, BINARY repo_name`,
		"D2": `SELECT repo_name AS repo, AVG(CAST(issue_comments AS DOUBLE)) AS comments FROM norm_events WHERE type = 'IssueCommentEvent' AND issue_comments > 2 GROUP BY repo_name ORDER BY comments DESC, BINARY repo_name`,
	},
	engine.KindSQLite: {
		"A":  `SELECT repo_name AS repo, count(*) AS n FROM norm_events WHERE type = 'IssuesEvent' AND action = 'opened' GROUP BY repo_name ORDER BY n DESC, repo_name`,
		"B":  `SELECT type, count(*) AS n FROM norm_events GROUP BY type ORDER BY n DESC, type`,
		"C":  `SELECT actor_login AS login, count(*) AS n FROM norm_events GROUP BY actor_login ORDER BY n DESC, actor_login LIMIT 10`,
		"D":  `SELECT repo_name AS repo, avg(issue_comments) AS comments FROM norm_events WHERE type = 'PushEvent' AND issue_comments > 2 GROUP BY repo_name ORDER BY comments DESC, repo_name`,
		"D2": `SELECT repo_name AS repo, avg(issue_comments) AS comments FROM norm_events WHERE type = 'IssueCommentEvent' AND issue_comments > 2 GROUP BY repo_name ORDER BY comments DESC, repo_name`,
	},
}

func TestNormSQLGolden(t *testing.T) {
	for eng, qs := range goldenNormSQL {
		for _, q := range Queries() {
			got, err := NormSQL(eng, q.Name)
			if err != nil {
				t.Fatal(err)
			}
			if got != qs[q.Name] {
				t.Errorf("%s %s:\n got %s\nwant %s", eng, q.Name, got, qs[q.Name])
			}
		}
	}
	if _, err := NormSQL("oracle", "A"); err == nil {
		t.Error("a query for an unknown engine")
	}
	if _, err := NormSQL(engine.KindSQLite, "E"); err == nil || !strings.Contains(err.Error(), "A,B,C,D,D2") {
		t.Errorf("unknown query: %v", err)
	}
}

// TestNormIndexes checks that the normalized table has the study's five
// indexes on the columns that hold the JSON form's five indexed paths,
// that every engine builds them, and that the queries filter and group on
// exactly those columns.
func TestNormIndexes(t *testing.T) {
	norm := NormDeclared()[0]
	// The JSON form's path → the column holding it.
	columnOf := map[string]string{"repo.name": "repo_name", "payload.action": "action", "type": "type",
		"actor.login": "actor_login", "payload.issue.comments": "issue_comments"}
	var want, got []string
	for _, x := range Declared().Indexes {
		want = append(want, columnOf[x.Keys[0].PathName()])
	}
	for _, x := range norm.Indexes {
		if len(x.Keys) != 1 || x.Keys[0].PathName() != "" {
			t.Errorf("index %s: keys %v, want one column", x.Name, x.Keys)
			continue
		}
		got = append(got, x.Keys[0].Column)
	}
	if !slices.Equal(got, want) {
		t.Errorf("indexes on %v, want %v", got, want)
	}
	for _, d := range []engine.SQLDialect{postgres.Dialect{}, mysql.Dialect{}, sqlite.Dialect{}} {
		ddl := strings.Join(d.(engine.SchemaRenderer).AfterLoadSQL(norm), "\n")
		for _, x := range norm.Indexes {
			if !strings.Contains(ddl, x.Name) || !strings.Contains(ddl, "("+x.Keys[0].Column+")") {
				t.Errorf("%s: no index %s on %s:\n%s", d.Name(), x.Name, x.Keys[0].Column, ddl)
			}
		}
		for _, q := range Queries() {
			text, err := NormSQL(d.Capabilities().Kind, q.Name)
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range []string{" WHERE ", " GROUP BY "} {
				if _, clause, ok := strings.Cut(text, part); ok {
					clause, _, _ = strings.Cut(clause, " ORDER BY ")
					clause, _, _ = strings.Cut(clause, " GROUP BY ")
					for _, term := range strings.Split(clause, " AND ") {
						col, _, _ := strings.Cut(term, " ")
						if !slices.Contains(got, col) {
							t.Errorf("%s %s: %s on %s, which has no index", d.Name(), q.Name, strings.TrimSpace(part), col)
						}
					}
				}
			}
		}
	}
}

// TestNormTables checks the normalized form's declaration and data: two
// valid tables; norm_events one row per event, in order, its columns the
// values the event's JSON holds (NULL where the JSON has no member or a
// null); norm_commits one row per commit the PushEvents list, in order;
// and each batch the same rows every time it is made.
func TestNormTables(t *testing.T) {
	const n = 10100
	w := New()
	if err := w.Define().Options.Parse([]string{"--events", "10100", "--normalized", "--seed-data", "5"}); err != nil {
		t.Fatal(err)
	}
	if got := workload.DataOptionValues(w)["normalized"]; got != "true" {
		t.Errorf("data option normalized = %q", got)
	}
	tables := w.Define().Tables(nil)
	if len(tables) != 2 {
		t.Fatalf("%d tables", len(tables))
	}
	var decl []*schema.Table
	for i := range tables {
		tables[i] = tables[i].Resolve()
		decl = append(decl, tables[i].Schema)
	}
	if errs := schema.Validate(decl); len(errs) > 0 {
		t.Fatal(errs)
	}
	if tables[0].Name != NormTable || tables[1].Name != NormCommitsTable || tables[0].Batches != 3 || tables[1].Batches != 3 {
		t.Fatalf("tables %s (%d batches), %s (%d batches)", tables[0].Name, tables[0].Batches, tables[1].Name, tables[1].Batches)
	}
	// Typed columns only, none named by a reserved word of SQL (names
	// are written unquoted).
	for _, tb := range tables {
		for _, c := range tb.Schema.Columns {
			if slices.Contains([]string{"distinct", "order", "group", "select", "from", "where"}, c.Name) || c.Type == schema.JSON {
				t.Errorf("%s.%s: %v", tb.Name, c.Name, c.Type)
			}
		}
	}

	all := func(tb workload.Table) [][]any {
		var out [][]any
		for b := range tb.Batches {
			src := tb.Rows(b)
			for src.Next() {
				v, err := src.Values()
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, slices.Clone(v))
			}
			if err := src.Err(); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	events, commits := all(tables[0]), all(tables[1])
	if len(events) != n {
		t.Fatalf("%d event rows, want %d", len(events), n)
	}
	g := w.Generator()
	var buf []byte
	var wantCommits [][]any
	for i, row := range events {
		buf = g.AppendEvent(buf[:0], int64(i))
		var ev map[string]any
		if err := json.Unmarshal(buf, &ev); err != nil {
			t.Fatal(err)
		}
		at := time.Unix(g.Time(int64(i)), 0).UTC()
		actor, repo, p := ev["actor"].(map[string]any), ev["repo"].(map[string]any), ev["payload"].(map[string]any)
		want := []any{g.ID(int64(i)), ev["type"], int64(actor["id"].(float64)), actor["login"], int64(repo["id"].(float64)), repo["name"],
			nil, nil, true, at, nil, nil, nil, nil, nil, nil, nil, nil}
		if org, ok := ev["org"].(map[string]any); ok {
			want[6], want[7] = int64(org["id"].(float64)), org["login"]
		}
		num := func(v any) any {
			if f, ok := v.(float64); ok {
				return int64(f)
			}
			return v
		}
		want[10], want[11], want[12] = p["action"], p["ref"], p["ref_type"]
		want[13], want[14], want[15] = num(p["size"]), num(p["distinct_size"]), num(p["number"])
		if is, ok := p["issue"].(map[string]any); ok {
			want[16], want[17] = num(is["number"]), num(is["comments"])
		}
		if !reflect.DeepEqual(row, want) {
			t.Fatalf("event %d:\n got %v\nwant %v", i, row, want)
		}
		if cs, ok := p["commits"].([]any); ok {
			for k, c := range cs {
				c := c.(map[string]any)
				a := c["author"].(map[string]any)
				wantCommits = append(wantCommits, []any{g.ID(int64(i)), int64(k), c["sha"], a["email"], a["name"], c["message"], c["distinct"]})
			}
		}
	}
	if len(commits) == 0 || !reflect.DeepEqual(commits, wantCommits) {
		t.Errorf("%d commit rows, want %d (first %v)", len(commits), len(wantCommits), commits[:min(1, len(commits))])
	}
	// The columns every event has are never NULL, as declared.
	for _, row := range events {
		for k, c := range tables[0].Schema.Columns {
			if !c.Null && row[k] == nil {
				t.Fatalf("%s is NULL in %v", c.Name, row)
			}
		}
	}

	for ti, tb := range tables {
		first, again := tb.Rows(1), tb.Rows(1)
		for first.Next() {
			if !again.Next() {
				t.Fatalf("table %d batch 1: fewer rows the second time", ti)
			}
			a, _ := first.Values()
			b, _ := again.Values()
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("table %d batch 1: %v, then %v", ti, a, b)
			}
		}
		if again.Next() {
			t.Fatalf("table %d batch 1: more rows the second time", ti)
		}
	}
}

// TestReadFlat checks the reader of the normalized columns on JSON the
// generator does not write: whitespace, escapes, nulls, members in
// another order and unknown ones; and that it refuses what is not an
// event's JSON.
func TestReadFlat(t *testing.T) {
	doc := ` { "payload" : {"x": [1, {"a": "}"}], "action": null, "ref": "a\"b\u00e9",
	  "issue": {"comments": 4, "user": {"type": "User"}}, "commits": [{"sha": "s", "author": {"name": "n", "email": "e"},
	  "message": "l1\nl2", "distinct": false}]},
	  "type": "IssuesEvent", "id": "42", "actor": {"login": "x", "id": -3}, "repo": {"name": "o/r", "id": 9},
	  "org": null, "public": false, "created_at": "2015-01-01T00:00:00Z", "other": 1.5e3 } `
	var ev flatEvent
	if err := readFlat([]byte(doc), &ev); err != nil {
		t.Fatal(err)
	}
	four := int64(4)
	ref := "a\"b\u00e9"
	want := flatEvent{ID: "42", Type: "IssuesEvent", ActorID: -3, ActorLogin: "x", RepoID: 9, RepoName: "o/r",
		CreatedAt: "2015-01-01T00:00:00Z", Ref: &ref, HasIssue: true, Comments: &four,
		Commits: []flatCommit{{SHA: "s", Email: "e", Name: "n", Message: "l1\nl2"}}}
	if !reflect.DeepEqual(ev, want) {
		t.Errorf("read\n %+v\nwant %+v", ev, want)
	}
	for _, bad := range []string{``, `{`, `{"id": 42}`, `{"public": "yes"}`, `{"payload": {"size": "3"}}`,
		`{"id": "1"} x`, `{"a": [1, 2}`, `{"type": "A", }`, `{"payload": {"commits": [{"sha": "s"]}}`} {
		if err := readFlat([]byte(bad), &ev); !errors.Is(err, errJSON) {
			t.Errorf("%s: %v, want a malformed event", bad, err)
		}
	}
}
