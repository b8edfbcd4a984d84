package jsondoc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
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
	// Group is a text group key that may be missing (NULL, or a
	// missing field on MongoDB), written as the empty string.
	Group
	// Micros is an integer of microseconds since 1970, written as its
	// UTC time to the microsecond ("2024-11-21 16:25:49.000167").
	Micros
	// Millis is an integer of microseconds, written in milliseconds
	// with three decimals ("813006.959").
	Millis
)

// Query is one analytic query of a workload. Every engine runs it in its
// own language and returns the same rows in the same order: each top-N
// list is ordered by its figure and then by its name, in byte order, so
// that ties come out alike everywhere.
type Query struct {
	// Name is how the query is chosen (--query) and the name of its op.
	Name string
	// Title is the one-line description of the query's source.
	Title string
	// Description says what the query does on the generated data.
	Description string
	// Columns name the result's columns; Kinds say how each is written.
	Columns []string
	Kinds   []Kind
}

// Row is one result row, every value written as its query's Kinds say:
// rows read from different engines compare equal when the answers are
// the same.
type Row []string

// Lookup returns the query of qs called name (case does not matter).
func Lookup(qs []Query, name string) (Query, bool) {
	for _, q := range qs {
		if strings.EqualFold(q.Name, name) {
			return q, true
		}
	}
	return Query{}, false
}

// Names are the names of qs, comma-separated.
func Names(qs []Query) string {
	names := make([]string, len(qs))
	for i, q := range qs {
		names[i] = q.Name
	}
	return strings.Join(names, ",")
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
		if k == Group {
			return "", nil
		}
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
		switch k {
		case Average:
			return strconv.FormatFloat(x, 'f', 4, 64), nil
		case Count, Micros, Millis:
			s = strconv.FormatInt(int64(x), 10)
		default:
			s = strconv.FormatFloat(x, 'g', -1, 64)
		}
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
	case Count, Micros, Millis:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return "", fmt.Errorf("integer %q: %w", s, err)
		}
		switch k {
		case Micros:
			return time.UnixMicro(n).UTC().Format("2006-01-02 15:04:05.000000"), nil
		case Millis:
			return strconv.FormatInt(n/1000, 10) + "." + fmt.Sprintf("%03d", n%1000), nil
		}
		return strconv.FormatInt(n, 10), nil
	}
	return s, nil
}

// RunSQL runs q, written as text for c's engine, on c and returns its
// rows.
func RunSQL(ctx context.Context, c engine.SQLConn, q Query, text string) ([]Row, error) {
	var out []Row
	err := c.QueryRows(ctx, text, nil, func(vals []any) error {
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

// Querier is implemented by a workload on every engine family: it runs
// one query by name on one connection and returns its rows.
type Querier interface {
	RunQuery(ctx context.Context, c engine.Conn, name string) ([]Row, error)
}

// Answer runs query op on c through run and returns its rows as
// workload.Answers' Answer does.
func Answer(ctx context.Context, run Querier, c engine.Conn, op string) ([][]string, error) {
	rows, err := run.RunQuery(ctx, c, op)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out, nil
}

// NewWorker returns a worker running the queries of list in turn on c
// through run, one per Next, starting at list's entry number env.ID
// (modulo its length) so that workers spread over them. all are the
// workload's queries in the order of its ops: Next returns the op of the
// query it ran.
func NewWorker(c engine.Conn, env workload.WorkerEnv, run Querier, all, list []Query) workload.Worker {
	k := &worker{c: c, run: run, queries: env.Queries, next: env.ID % len(list)}
	for _, q := range list {
		for i, a := range all {
			if a.Name == q.Name {
				k.ops = append(k.ops, i)
				k.names = append(k.names, q.Name)
			}
		}
	}
	return k
}

// worker runs its queries round robin, one per Next.
type worker struct {
	c       engine.Conn
	run     Querier
	queries *workload.Queries
	ops     []int
	names   []string
	next    int
}

func (k *worker) Next(ctx context.Context) (int, error) {
	i := k.next
	k.next = (k.next + 1) % len(k.ops)
	if k.queries != nil {
		k.queries.Reads++
	}
	_, err := k.run.RunQuery(ctx, k.c, k.names[i])
	return k.ops[i], err
}

// ParseList is a --query value as queries of qs: "all" for every one,
// else a comma-separated list of names.
func ParseList(qs []Query, value string) ([]Query, error) {
	if strings.TrimSpace(value) == "all" {
		return append([]Query(nil), qs...), nil
	}
	var out []Query
	for _, n := range strings.Split(value, ",") {
		if strings.TrimSpace(n) == "all" {
			return nil, fmt.Errorf("all stands alone: give --query all, or a list of queries (%s) without it", Names(qs))
		}
		q, ok := Lookup(qs, strings.TrimSpace(n))
		if !ok {
			return nil, fmt.Errorf("unknown query %q (known: all, %s)", strings.TrimSpace(n), Names(qs))
		}
		out = append(out, q)
	}
	return out, nil
}

// Ops are the queries qs, one op each, in order.
func Ops(qs []Query) []workload.Op {
	out := make([]workload.Op, len(qs))
	for i, q := range qs {
		out[i] = workload.Op{Name: q.Name}
	}
	return out
}

// OpNames are the names of --query's queries (value, among all), in
// order, for workload.Answers' Ops; a bad value is an option error on
// --query.
func OpNames(all []Query, value string) ([]string, error) {
	qs, err := ParseList(all, value)
	if err != nil {
		return nil, &workload.OptionError{Flag: "query", Value: value, Err: err.Error()}
	}
	names := make([]string, len(qs))
	for i, q := range qs {
		names[i] = q.Name
	}
	return names, nil
}
