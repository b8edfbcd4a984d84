package result

import (
	"fmt"
	"math"
	"slices"
)

// How the first try of a query ran (Try.Label), as the run's cold mode
// (the run option cold, recorded in Workload.Options) made it; the later
// tries are LabelHot.
const (
	// LabelCold is a first try after the server was restarted and the
	// operating system's page cache dropped (--cold drop-caches).
	LabelCold = "cold"
	// LabelColdCacheKept is a first try after the server was restarted,
	// the operating system's page cache kept (--cold restart, the
	// default on a managed server; in files of older versions, a run
	// whose drop of the page cache was not permitted): the server's own
	// caches were empty, the operating system's were not.
	LabelColdCacheKept = "cold (server restarted, OS cache kept)"
	// LabelLukewarm is a first try on a server that was not restarted
	// (--cold none, the default on a target dbarena cannot restart, not
	// a managed server): whatever earlier work left in its caches stays.
	LabelLukewarm = "lukewarm"
	// LabelHot is every try after the first.
	LabelHot = "hot"
)

// Tries is a run in the analytic timing model (ClickBench's rules): each
// query ran Count times in a row on one connection, nothing else running,
// and every try is kept. A run of the closed or arrival-rate model has
// none.
type Tries struct {
	// Count is the number of tries of each query (--tries).
	Count int `json:"count"`
	// QueryTimeoutS is the limit on one try in seconds (--query-timeout),
	// 0 for none.
	QueryTimeoutS float64 `json:"query_timeout_s,omitempty"`
	// Queries are the queries in the order they ran.
	Queries []QueryTries `json:"queries"`
	// Storage are the workload's tables' sizes on disk once the tries
	// were done, as the engine accounts for them; none where it cannot
	// tell (or in files of older versions).
	Storage []TableStorage `json:"storage,omitempty"`
}

// TableStorage is one table's (collection's) size on disk in bytes: its
// rows (Data), its indexes and the two together (Total), as
// engine.TableSize says.
type TableStorage struct {
	Table      string `json:"table"`
	DataBytes  int64  `json:"data_bytes"`
	IndexBytes int64  `json:"index_bytes"`
	TotalBytes int64  `json:"total_bytes"`
}

// QueryTries is one query's tries, in the order they ran. A merged run
// (Merge) holds every shard's tries, one shard after the other, each
// shard's first try labelled as it ran.
type QueryTries struct {
	Name  string `json:"name"`
	Tries []Try  `json:"tries"`
}

// Try is one execution of a query. A try that failed or timed out has no
// time (null, never zero) and says why in Error.
type Try struct {
	// Label says how the try ran: cold, cold with the OS cache kept or
	// lukewarm for the first, hot for the others (the Label constants).
	Label string `json:"label"`
	// S is the try's time in seconds from sending the query to having
	// read every row; nil when it failed.
	S     *float64 `json:"s"`
	Error string   `json:"error,omitempty"`
	// Rows and Hash are the answer's row count and the hash of its rows
	// in canonical text (workload.HashRows), for checking that engines
	// answer alike; absent when the try failed.
	Rows int64  `json:"rows"`
	Hash string `json:"hash,omitempty"`
}

// First reports whether t is a query's first try (cold or lukewarm).
func (t Try) First() bool { return t.Label != LabelHot }

// Cold is the time of the query's first try, nil when it failed. In a
// merged run it is the best of the shards' first tries.
func (q QueryTries) Cold() *float64 { return q.best(true) }

// Hot is the best (lowest) time of the tries after the first, nil when
// there were none or every one failed.
func (q QueryTries) Hot() *float64 { return q.best(false) }

func (q QueryTries) best(first bool) *float64 {
	var b *float64
	for _, t := range q.Tries {
		if t.First() == first && t.S != nil && (b == nil || *t.S < *b) {
			v := *t.S
			b = &v
		}
	}
	return b
}

// Spread is the lowest and highest time of the tries after the first
// that succeeded; ok is false when none did.
func (q QueryTries) Spread() (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, t := range q.Tries {
		if !t.First() && t.S != nil {
			lo, hi, ok = min(lo, *t.S), max(hi, *t.S), true
		}
	}
	return lo, hi, ok
}

// FirstLabel is the label of the query's first try ("" without tries).
func (q QueryTries) FirstLabel() string {
	for _, t := range q.Tries {
		if t.First() {
			return t.Label
		}
	}
	return ""
}

// Answer is the answer the query's successful tries gave (row count and
// hash), the first one's; ok is false when none succeeded. Differ tells
// whether the successful tries gave different answers.
func (q QueryTries) Answer() (rows int64, hash string, differ, ok bool) {
	for _, t := range q.Tries {
		if t.S == nil {
			continue
		}
		if !ok {
			rows, hash, ok = t.Rows, t.Hash, true
		} else if t.Rows != rows || t.Hash != hash {
			differ = true
		}
	}
	return rows, hash, differ, ok
}

// Errors counts the query's tries that failed.
func (q QueryTries) Errors() int {
	n := 0
	for _, t := range q.Tries {
		if t.S == nil {
			n++
		}
	}
	return n
}

// Query returns the tries of the query called name.
func (t *Tries) Query(name string) (QueryTries, bool) {
	if t == nil {
		return QueryTries{}, false
	}
	for _, q := range t.Queries {
		if q.Name == name {
			return q, true
		}
	}
	return QueryTries{}, false
}

// sameTries checks that the runs' tries were run alike: all or none in
// the timing model, with the same number of tries and the same queries.
func sameTries(field string, base, g *Tries) *MergeError {
	differ := func(f string, want, got any) *MergeError {
		return &MergeError{Field: field + f, Reason: fmt.Sprintf("%v, but the first file has %v: not a shard of the same run", got, want)}
	}
	switch {
	case (base == nil) != (g == nil):
		return differ("", triesModel(base), triesModel(g))
	case base == nil:
		return nil
	case base.Count != g.Count:
		return differ(".count", base.Count, g.Count)
	case base.QueryTimeoutS != g.QueryTimeoutS:
		return differ(".query_timeout_s", base.QueryTimeoutS, g.QueryTimeoutS)
	}
	names := func(t *Tries) []string {
		out := make([]string, len(t.Queries))
		for i, q := range t.Queries {
			out[i] = q.Name
		}
		return out
	}
	if a, b := names(base), names(g); !slices.Equal(a, b) {
		return differ(".queries", a, b)
	}
	return nil
}

func triesModel(t *Tries) string {
	if t == nil {
		return "no tries"
	}
	return fmt.Sprintf("%d tries", t.Count)
}

// mergeTries merges the runs' tries (checked alike by sameTries): each
// query's tries are every shard's, in the files' order; the storage is
// the first shard's (every shard measured the same tables).
func mergeTries(runs []*Run) *Tries {
	base := runs[0].Tries
	if base == nil {
		return nil
	}
	m := &Tries{Count: base.Count, QueryTimeoutS: base.QueryTimeoutS, Storage: base.Storage}
	for qi, q := range base.Queries {
		mq := QueryTries{Name: q.Name}
		for _, r := range runs {
			mq.Tries = append(mq.Tries, r.Tries.Queries[qi].Tries...)
		}
		m.Queries = append(m.Queries, mq)
	}
	return m
}
