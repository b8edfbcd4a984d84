package docolap

import (
	"context"
	"fmt"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/byengine"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// Kind is how a result column's values are written in a Row.
type Kind = jsondoc.Kind

// Result column kinds (see jsondoc).
const (
	Text    = jsondoc.Text
	Count   = jsondoc.Count
	Average = jsondoc.Average
)

// Query is one of the study's analytic queries. Every engine runs it in
// its own language and returns the same rows in the same order: each
// top-N list is ordered by its figure and then by its name, in byte
// order, so that ties come out alike everywhere.
type Query = jsondoc.Query

// Row is one result row, every value written as Kinds says: rows read
// from different engines compare equal when the answers are the same.
type Row = jsondoc.Row

// The queries' names.
const (
	QueryA  = "A"
	QueryB  = "B"
	QueryC  = "C"
	QueryD  = "D"
	QueryD2 = "D2"
)

var queries = []Query{
	{Name: QueryA, Title: "repositories ordered by most opened issues",
		Description: "IssuesEvent with payload.action opened, counted per repo.name, most first; a selective filter (about 3 % of the events, the five indexes' type and action) then a group-by over many repositories",
		Columns:     []string{"repo", "n"}, Kinds: []Kind{Text, Count}},
	{Name: QueryB, Title: "event types ordered by quantity",
		Description: "events counted per type, most first: a full scan into 14 groups",
		Columns:     []string{"type", "n"}, Kinds: []Kind{Text, Count}},
	{Name: QueryC, Title: "the top 10 most active actors",
		Description: "events counted per actor.login, the 10 with the most: a full scan into as many groups as there are actors",
		Columns:     []string{"login", "n"}, Kinds: []Kind{Text, Count}},
	{Name: QueryD, Title: "repositories with more than two comments for one event type, by average comments",
		Description: "the study's query as written, on PushEvent: payload.issue.comments above 2, averaged per repo.name, highest first. No PushEvent carries payload.issue, in 2015's data as in the generated one, so it returns no rows, by construction: it measures a scan of the PushEvents (about half the events) that keeps nothing",
		Columns:     []string{"repo", "comments"}, Kinds: []Kind{Text, Average}},
	{Name: QueryD2, Title: "D on IssueCommentEvent, which returns rows",
		Description: "query D with IssueCommentEvent, whose payload.issue.comments is always there: issues with more than two comments, averaged per repo.name, highest first",
		Columns:     []string{"repo", "comments"}, Kinds: []Kind{Text, Average}},
}

// Queries lists the queries in the study's order, D′ (D2) last.
func Queries() []Query { return append([]Query(nil), queries...) }

// LookupQuery returns the query called name (case does not matter).
func LookupQuery(name string) (Query, bool) { return jsondoc.Lookup(queries, name) }

// QueryNames are the queries' names, comma-separated.
func QueryNames() string { return jsondoc.Names(queries) }

// The event types queries D and D2 (D′) average the comments of.
const (
	DEventType  = "PushEvent"
	D2EventType = "IssueCommentEvent"
)

// jsonSQL writes one SQL engine's JSON expressions. Each is the very
// expression the engine indexes the declared path keys with (see
// Declared), so that a planner that matches expressions can use the
// index.
type jsonSQL struct {
	// text is the text at a path; num the integer there.
	text, num func(path ...string) string
	// avg averages an integer expression as the engine's average that
	// reads alike everywhere.
	avg func(num string) string
	// name is a selected name, byName orders by it: together they sort
	// names in byte order.
	name, byName func(s string) string
}

// jsonOf is the JSON form's expressions on the doc column, from the
// engine's shared ones (p), with avg the engine's average.
func jsonOf(p jsondoc.SQL, avg func(num string) string) jsonSQL {
	return jsonSQL{
		text:   func(path ...string) string { return p.Text("doc", path...) },
		num:    func(path ...string) string { return p.Num("doc", path...) },
		avg:    avg,
		name:   p.Name,
		byName: p.ByName,
	}
}

// sqlDialect is one SQL engine's part of the queries; each engine's
// file (sql_postgres.go, sql_mysql.go, sql_sqlite.go) registers its own
// in sqlDialects.
type sqlDialect struct {
	json jsonSQL // the JSON form's expressions
	norm normSQL // the normalized form's ordering and average
}

// sqlDialects are the SQL engines' parts of the queries.
var sqlDialects = byengine.Registry[sqlDialect]{What: "docolap queries"}

// dialectFor returns the part of the queries of SQL engine kind.
func dialectFor(kind engine.Kind) (sqlDialect, error) {
	d, err := sqlDialects.For(kind)
	if err != nil {
		return sqlDialect{}, fmt.Errorf("docolap: %w", err)
	}
	return d, nil
}

// SQL returns query name's text for the SQL engine of kind
// (engine.KindPostgres, KindMySQL or KindSQLite: the dialect's
// Capabilities().Kind).
func SQL(kind engine.Kind, name string) (string, error) {
	d, err := dialectFor(kind)
	if err != nil {
		return "", err
	}
	j := d.json
	q, ok := LookupQuery(name)
	if !ok {
		return "", fmt.Errorf("docolap: no query %q (known: %s)", name, QueryNames())
	}
	typ := j.text("type")
	repo := j.name(j.text("repo", "name"))
	switch q.Name {
	case QueryA:
		return "SELECT " + repo + " AS repo, count(*) AS n FROM " + Table +
			" WHERE " + typ + " = 'IssuesEvent' AND " + j.text("payload", "action") + " = 'opened'" +
			" GROUP BY repo ORDER BY n DESC, " + j.byName("repo"), nil
	case QueryB:
		return "SELECT " + j.name(typ) + " AS type, count(*) AS n FROM " + Table +
			" GROUP BY type ORDER BY n DESC, " + j.byName("type"), nil
	case QueryC:
		return "SELECT " + j.name(j.text("actor", "login")) + " AS login, count(*) AS n FROM " + Table +
			" GROUP BY login ORDER BY n DESC, " + j.byName("login") + " LIMIT 10", nil
	default: // D, D2
		typName := DEventType
		if q.Name == QueryD2 {
			typName = D2EventType
		}
		comments := j.num("payload", "issue", "comments")
		return "SELECT " + repo + " AS repo, " + j.avg(comments) + " AS comments FROM " + Table +
			" WHERE " + typ + " = '" + typName + "' AND " + comments + " > 2" +
			" GROUP BY repo ORDER BY comments DESC, " + j.byName("repo"), nil
	}
}

// RunSQL runs query name on c and returns its rows.
func RunSQL(ctx context.Context, c engine.SQLConn, name string) ([]Row, error) {
	return runSQL(ctx, c, name, SQL)
}

// runSQL runs query name, as write writes it for c's engine, on c and
// returns its rows.
func runSQL(ctx context.Context, c engine.SQLConn, name string, write func(kind engine.Kind, name string) (string, error)) ([]Row, error) {
	text, err := write(c.Dialect().Capabilities().Kind, name)
	if err != nil {
		return nil, err
	}
	q, _ := LookupQuery(name)
	return jsondoc.RunSQL(ctx, c, q, text)
}

// Format writes v as a value of kind k.
func Format(k Kind, v any) (string, error) { return jsondoc.Format(k, v) }
