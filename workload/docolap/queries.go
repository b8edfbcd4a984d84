package docolap

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/byengine"
)

// Kind is how a result column's values are written in a Row.
type Kind int

// Result column kinds.
const (
	// Text is a string as stored (a repository name, a login, a type).
	Text Kind = iota
	// Count is an integer in decimal.
	Count
	// Average is a number rounded to four decimals ("3.3333"), so that
	// the engines' averages (numeric, decimal, double) read alike.
	Average
)

// Query is one of the study's analytic queries. Every engine runs it in
// its own language and returns the same rows in the same order: each
// top-N list is ordered by its figure and then by its name, in byte
// order, so that ties come out alike everywhere.
type Query struct {
	// Name is how the query is chosen (--query) and the name of its op.
	Name string
	// Title is the study's one-line description.
	Title string
	// Description says what the query does on the generated data.
	Description string
	// Columns name the result's columns; Kinds say how each is written.
	Columns []string
	Kinds   []Kind
}

// Row is one result row, every value written as Kinds says: rows read
// from different engines compare equal when the answers are the same.
type Row []string

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
func LookupQuery(name string) (Query, bool) {
	for _, q := range queries {
		if strings.EqualFold(q.Name, name) {
			return q, true
		}
	}
	return Query{}, false
}

// QueryNames are the queries' names, comma-separated.
func QueryNames() string {
	names := make([]string, len(queries))
	for i, q := range queries {
		names[i] = q.Name
	}
	return strings.Join(names, ",")
}

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

func same(s string) string { return s }

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
	var out []Row
	err = c.QueryRows(ctx, text, nil, func(vals []any) error {
		row, err := q.Row(vals)
		if err != nil {
			return err
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q.Name, err)
	}
	return out, nil
}

// Row writes one row of the query's result, as a driver returns it
// (int64, float64, string, []byte, or for a Count a float64 or a
// decimal string), as Kinds says.
func (q Query) Row(vals []any) (Row, error) {
	if len(vals) != len(q.Kinds) {
		return nil, fmt.Errorf("query %s: %d columns, want %d", q.Name, len(vals), len(q.Kinds))
	}
	row := make(Row, len(vals))
	for i, v := range vals {
		s, err := Format(q.Kinds[i], v)
		if err != nil {
			return nil, fmt.Errorf("query %s column %s: %w", q.Name, q.Columns[i], err)
		}
		row[i] = s
	}
	return row, nil
}

// Format writes v as a value of kind k.
func Format(k Kind, v any) (string, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return "", fmt.Errorf("NULL")
	case string:
		s = x
	case []byte:
		s = string(x)
	case int64:
		s = strconv.FormatInt(x, 10)
	case int32:
		s = strconv.FormatInt(int64(x), 10)
	case int:
		s = strconv.Itoa(x)
	case float64:
		if k == Average {
			return strconv.FormatFloat(x, 'f', 4, 64), nil
		}
		if k == Count {
			return strconv.FormatInt(int64(x), 10), nil
		}
		s = strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return "", fmt.Errorf("value of type %T", v)
	}
	switch k {
	case Average:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "", fmt.Errorf("average %q: %w", s, err)
		}
		return strconv.FormatFloat(f, 'f', 4, 64), nil
	case Count:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return "", fmt.Errorf("count %q: %w", s, err)
		}
		return strconv.FormatInt(n, 10), nil
	}
	return s, nil
}
