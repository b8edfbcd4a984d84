package jsonbench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// Answers computes every query's rows directly from g's events, without
// a database: the reference every engine's answers are checked against.
// It parses each event's JSON as loaded, so it checks the documents, not
// the generator's intentions; it is meant for small data sets (it holds
// the dids of every collection).
func Answers(g *Generator) (map[string][]Row, error) {
	var ev struct {
		DID    string `json:"did"`
		TimeUS int64  `json:"time_us"`
		Kind   string `json:"kind"`
		Commit *struct {
			Operation  string `json:"operation"`
			Collection string `json:"collection"`
		} `json:"commit"`
	}
	type span struct{ lo, hi int64 }
	events := map[string]int64{}
	creates := map[string]int64{}
	users := map[string]map[string]bool{}
	type hourKey struct {
		coll string
		hour int64
	}
	hours := map[hourKey]int64{}
	posts := map[string]*span{}
	hourly := map[string]bool{}
	for _, c := range Hourly {
		hourly[c.NSID()] = true
	}
	var buf []byte
	for i := range g.Docs() {
		buf = g.AppendDoc(buf[:0], i)
		ev.Commit = nil
		if err := json.Unmarshal(buf, &ev); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		coll := ""
		if ev.Commit != nil {
			coll = ev.Commit.Collection
		}
		events[coll]++
		if ev.Kind != "commit" || ev.Commit == nil || ev.Commit.Operation != "create" {
			continue
		}
		creates[coll]++
		if users[coll] == nil {
			users[coll] = map[string]bool{}
		}
		users[coll][ev.DID] = true
		if hourly[coll] {
			hours[hourKey{coll, ev.TimeUS / 3600000000 % 24}]++
		}
		if coll == Post.NSID() {
			s := posts[ev.DID]
			if s == nil {
				posts[ev.DID] = &span{ev.TimeUS, ev.TimeUS}
			} else {
				s.lo, s.hi = min(s.lo, ev.TimeUS), max(s.hi, ev.TimeUS)
			}
		}
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	// byCount orders by count (column 1) descending, then name.
	byCount := func(a, b Row) int {
		na, _ := strconv.ParseInt(a[1], 10, 64)
		nb, _ := strconv.ParseInt(b[1], 10, 64)
		return cmp.Or(cmp.Compare(nb, na), cmp.Compare(a[0], b[0]))
	}
	var q1, q2, q3 []Row
	for c, n := range events {
		q1 = append(q1, Row{c, itoa(n)})
	}
	slices.SortFunc(q1, byCount)
	for c, n := range creates {
		q2 = append(q2, Row{c, itoa(n), itoa(int64(len(users[c])))})
	}
	slices.SortFunc(q2, byCount)
	for k, n := range hours {
		q3 = append(q3, Row{k.coll, itoa(k.hour), itoa(n)})
	}
	slices.SortFunc(q3, func(a, b Row) int {
		ha, _ := strconv.ParseInt(a[1], 10, 64)
		hb, _ := strconv.ParseInt(b[1], 10, 64)
		return cmp.Or(cmp.Compare(ha, hb), cmp.Compare(a[0], b[0]))
	})
	type figure struct {
		did string
		v   int64
	}
	var first, longest []figure
	for d, s := range posts {
		first = append(first, figure{d, s.lo})
		longest = append(longest, figure{d, s.hi - s.lo})
	}
	slices.SortFunc(first, func(a, b figure) int { return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.did, b.did)) })
	slices.SortFunc(longest, func(a, b figure) int { return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(a.did, b.did)) })
	top := func(fs []figure, k jsondoc.Kind) []Row {
		var out []Row
		for _, f := range fs[:min(3, len(fs))] {
			s, _ := jsondoc.Format(k, f.v)
			out = append(out, Row{f.did, s})
		}
		return out
	}
	return map[string][]Row{
		Q1: q1, Q2: q2, Q3: q3,
		Q4: top(first, jsondoc.Micros),
		Q5: top(longest, jsondoc.Millis),
	}, nil
}
