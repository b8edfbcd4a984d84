package docolap_test

import (
	"encoding/json"
	"fmt"

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
	c, _ := docolap.SQL("postgres", docolap.QueryC)
	fmt.Println(c)
	// Output:
	// 644000 2489420001 2015-01-01T13:55:11Z
	// SELECT doc->'actor'->>'login' COLLATE "C" AS login, count(*) AS n FROM events GROUP BY login ORDER BY n DESC, login LIMIT 10
}
