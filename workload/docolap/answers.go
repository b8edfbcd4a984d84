package docolap

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Answers computes every query's rows directly from g's events, without
// a database: the reference every engine's answers are checked against.
// It parses each event's JSON as loaded, so it checks the documents, not
// the generator's intentions; it is meant for small data sets (it holds
// a count per actor and per repository).
func Answers(g *Generator) (map[string][]Row, error) {
	var ev struct {
		Type  string `json:"type"`
		Actor struct {
			Login string `json:"login"`
		} `json:"actor"`
		Repo struct {
			Name string `json:"name"`
		} `json:"repo"`
		Payload struct {
			Action string `json:"action"`
			Issue  *struct {
				Comments *int64 `json:"comments"`
			} `json:"issue"`
		} `json:"payload"`
	}
	opened, types, actors := map[string]int64{}, map[string]int64{}, map[string]int64{}
	type avg struct{ sum, n int64 }
	d := map[string]map[string]*avg{DEventType: {}, D2EventType: {}}
	var buf []byte
	for i := range g.Events() {
		buf = g.AppendEvent(buf[:0], i)
		ev.Payload.Action, ev.Payload.Issue = "", nil
		if err := json.Unmarshal(buf, &ev); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		types[ev.Type]++
		actors[ev.Actor.Login]++
		if ev.Type == "IssuesEvent" && ev.Payload.Action == "opened" {
			opened[ev.Repo.Name]++
		}
		if m := d[ev.Type]; m != nil && ev.Payload.Issue != nil && ev.Payload.Issue.Comments != nil && *ev.Payload.Issue.Comments > 2 {
			a := m[ev.Repo.Name]
			if a == nil {
				a = &avg{}
				m[ev.Repo.Name] = a
			}
			a.sum += *ev.Payload.Issue.Comments
			a.n++
		}
	}
	counts := func(m map[string]int64, limit int) []Row {
		out := make([]Row, 0, len(m))
		for k, n := range m {
			out = append(out, Row{k, strconv.FormatInt(n, 10)})
		}
		slices.SortFunc(out, func(a, b Row) int {
			na, _ := strconv.ParseInt(a[1], 10, 64)
			nb, _ := strconv.ParseInt(b[1], 10, 64)
			if na != nb {
				return -cmpInt(na, nb)
			}
			return strings.Compare(a[0], b[0])
		})
		if limit > 0 && len(out) > limit {
			out = out[:limit]
		}
		return out
	}
	averages := func(m map[string]*avg) []Row {
		type kv struct {
			k string
			v float64
		}
		var all []kv
		for k, a := range m {
			all = append(all, kv{k, float64(a.sum) / float64(a.n)})
		}
		slices.SortFunc(all, func(a, b kv) int {
			switch {
			case a.v > b.v:
				return -1
			case a.v < b.v:
				return 1
			}
			return strings.Compare(a.k, b.k)
		})
		out := make([]Row, len(all))
		for i, x := range all {
			out[i] = Row{x.k, strconv.FormatFloat(x.v, 'f', 4, 64)}
		}
		return out
	}
	return map[string][]Row{
		QueryA:  counts(opened, 0),
		QueryB:  counts(types, 0),
		QueryC:  counts(actors, 10),
		QueryD:  averages(d[DEventType]),
		QueryD2: averages(d[D2EventType]),
	}, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
