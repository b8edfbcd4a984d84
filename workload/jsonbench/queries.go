package jsonbench

import (
	"fmt"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// Query is one of JSONBench's queries, written for every engine so that
// each returns the same rows in the same order (a top-N list is ordered
// by its figure and then by the did, in byte order).
type Query = jsondoc.Query

// Row is one result row (see jsondoc.Row).
type Row = jsondoc.Row

// The queries' names.
const (
	Q1 = "Q1"
	Q2 = "Q2"
	Q3 = "Q3"
	Q4 = "Q4"
	Q5 = "Q5"
)

// Hourly are the collections Q3 counts per hour: posts, reposts and
// likes.
var Hourly = []Collection{Post, Repost, Like}

var queries = []Query{
	{Name: Q1, Title: "top event types",
		Description: "events counted per commit.collection, most first (the events without a commit are one group, its name empty): a full scan into 15 groups",
		Columns:     []string{"event", "count"}, Kinds: []jsondoc.Kind{jsondoc.Group, jsondoc.Count}},
	{Name: Q2, Title: "top event types together with unique users per event type",
		Description: "create commits counted per collection with their distinct dids, most first: the index's kind and operation, then a count distinct",
		Columns:     []string{"event", "count", "users"}, Kinds: []jsondoc.Kind{jsondoc.Text, jsondoc.Count, jsondoc.Count}},
	{Name: Q3, Title: "when do people use Bluesky",
		Description: "create commits of posts, reposts and likes counted per collection and hour of the day (UTC) of time_us, by hour and then collection",
		Columns:     []string{"event", "hour_of_day", "count"}, Kinds: []jsondoc.Kind{jsondoc.Text, jsondoc.Count, jsondoc.Count}},
	{Name: Q4, Title: "top 3 post veterans",
		Description: "the 3 dids whose first post create is earliest (time_us, to the microsecond), then by did",
		Columns:     []string{"user_id", "first_post_ts"}, Kinds: []jsondoc.Kind{jsondoc.Text, jsondoc.Micros}},
	{Name: Q5, Title: "top 3 users with longest activity",
		Description: "the 3 dids with the longest span between their first and last post create (milliseconds), longest first, then by did",
		Columns:     []string{"user_id", "activity_span"}, Kinds: []jsondoc.Kind{jsondoc.Text, jsondoc.Millis}},
}

// Queries lists the queries in JSONBench's order.
func Queries() []Query { return append([]Query(nil), queries...) }

// LookupQuery returns the query called name (case does not matter).
func LookupQuery(name string) (Query, bool) { return jsondoc.Lookup(queries, name) }

// QueryNames are the queries' names, comma-separated.
func QueryNames() string { return jsondoc.Names(queries) }

// usPerHour is the microseconds of an hour: Q3's hour of the day is
// time_us / usPerHour modulo 24, the same integer arithmetic on every
// engine (JSONBench's PostgreSQL query takes the hour in the session's
// time zone; this one is UTC whatever the session's).
const usPerHour = "3600000000"

// SQL returns query name's text for the SQL engine of kind
// (engine.KindPostgres, KindMySQL or KindSQLite). Each path is the very
// expression the engine indexes (jsondoc.SQL), so that a planner that
// matches expressions can use bluesky_idx.
func SQL(kind engine.Kind, name string) (string, error) {
	p, err := jsondoc.SQLFor(kind)
	if err != nil {
		return "", fmt.Errorf("jsonbench: %w", err)
	}
	q, ok := LookupQuery(name)
	if !ok {
		return "", fmt.Errorf("jsonbench: no query %q (known: %s)", name, QueryNames())
	}
	coll := p.Text(Column, "commit", "collection")
	did := p.Text(Column, "did")
	tus := p.Num(Column, "time_us")
	creates := " WHERE " + p.Text(Column, "kind") + " = 'commit' AND " + p.Text(Column, "commit", "operation") + " = 'create'"
	posts := creates + " AND " + coll + " = '" + Post.NSID() + "'"
	switch q.Name {
	case Q1:
		return "SELECT " + p.Name(coll) + " AS event, count(*) AS n FROM " + Table +
			" GROUP BY event ORDER BY n DESC, " + p.ByName("COALESCE("+p.Name(coll)+", '')"), nil
	case Q2:
		return "SELECT " + p.Name(coll) + " AS event, count(*) AS n, count(DISTINCT " + did + ") AS users FROM " + Table + creates +
			" GROUP BY event ORDER BY n DESC, " + p.ByName("event"), nil
	case Q3:
		in := ""
		for i, c := range Hourly {
			if i > 0 {
				in += ", "
			}
			in += "'" + c.NSID() + "'"
		}
		return "SELECT " + p.Name(coll) + " AS event, " + p.Div(tus, usPerHour) + " % 24 AS hour_of_day, count(*) AS n FROM " + Table +
			creates + " AND " + coll + " IN (" + in + ")" +
			" GROUP BY event, hour_of_day ORDER BY hour_of_day, " + p.ByName("event"), nil
	case Q4:
		return "SELECT " + p.Name(did) + " AS user_id, min(" + tus + ") AS first_post_ts FROM " + Table + posts +
			" GROUP BY user_id ORDER BY first_post_ts, " + p.ByName("user_id") + " LIMIT 3", nil
	default: // Q5
		return "SELECT " + p.Name(did) + " AS user_id, max(" + tus + ") - min(" + tus + ") AS activity_span FROM " + Table + posts +
			" GROUP BY user_id ORDER BY activity_span DESC, " + p.ByName("user_id") + " LIMIT 3", nil
	}
}
