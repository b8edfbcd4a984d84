package docolap_test

import (
	"encoding/json"
	"fmt"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/docolap"
)

// A generated event, and query C as PostgreSQL runs it.
func Example() {
	g := docolap.NewGenerator(0, docolap.EventsForDays(1))
	var ev struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		CreatedAt string `json:"created_at"`
	}
	if err := json.Unmarshal(g.AppendEvent(nil, 300000), &ev); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Events(), ev.ID, ev.CreatedAt)
	c, _ := docolap.SQL(engine.KindPostgres, docolap.QueryC)
	fmt.Println(c)
	// Output:
	// 644000 2489420001 2015-01-01T13:55:11Z
	// SELECT doc->'actor'->>'login' COLLATE "C" AS login, count(*) AS n FROM events GROUP BY login ORDER BY n DESC, login LIMIT 10
}

// The normalized form: query C on its typed columns, as PostgreSQL runs
// it, and the first rows of a batch of norm_events and norm_commits.
func ExampleNormSQL() {
	c, _ := docolap.NormSQL(engine.KindPostgres, docolap.QueryC)
	fmt.Println(c)
	w := docolap.New()
	if err := w.Define().Options.Parse([]string{"--events", "10", "--normalized"}); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range w.Define().Tables(nil) {
		src := t.Rows(0)
		src.Next()
		row, _ := src.Values()
		fmt.Println(t.Schema.Name, t.Schema.ColumnNames()[:4], row[:4])
	}
	// Output:
	// SELECT actor_login AS login, count(*) AS n FROM norm_events GROUP BY actor_login ORDER BY n DESC, actor_login COLLATE "C" LIMIT 10
	// norm_events [id type actor_id actor_login] [2488340000 PushEvent 10309 happyfalcon309]
	// norm_commits [event_id position sha author_email] [2488340000 0 2b3461909281d45cb0545aaca8944dcae1957372 happyfalcon309@users.noreply.github.com]
}
