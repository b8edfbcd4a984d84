// Package rules runs a workload's invariants (the rules of its Spec.Check) in
// order: it reports each one done to workload.ReportCheck and collects
// the workload.Problems they find. Most rules are one SQL query that
// returns only the rows that break the invariant (Query); a Problem names
// the first MaxDetails of them and how many there are in all.
package rules

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// MaxDetails is how many violating rows a Query's Problem names; its
// Detail always says how many there are in all.
const MaxDetails = 5

// Rule is one named invariant.
type Rule struct {
	// Name is what progress reports call the rule.
	Name string
	// Check returns the problems the rule finds, none when the invariant
	// holds; an error when it could not be checked.
	Check func(ctx context.Context) ([]workload.Problem, error)
}

// Run checks rs one after the other and returns their problems, in
// order. After each rule it tells workload.ReportCheck that rule i+1 of
// len(rs) is done. It stops at the first rule that fails with an error
// and returns that error with the problems found before it.
func Run(ctx context.Context, rs []Rule) ([]workload.Problem, error) {
	var problems []workload.Problem
	for i, r := range rs {
		ps, err := r.Check(ctx)
		problems = append(problems, ps...)
		if err != nil {
			return problems, err
		}
		workload.ReportCheck(ctx, i+1, len(rs), r.Name)
	}
	return problems, nil
}

// Kind says how a value of a violating row is printed.
type Kind int

const (
	Int   Kind = iota // an integer (or null)
	Money             // a decimal with two places
	Text              // a string, as it is
)

// Column is a value column of a Query's rows: Label precedes the value
// ("w_ytd 30000.00"); a column without one prints its value alone and is
// left out when that is empty or null. It is an unnamed struct type, so
// that the checking packages' tables of rules may write their columns as
// {label, kind}.
type Column = struct {
	Label string
	Kind  Kind
}

// Query is an invariant checked by one SQL query that returns only the
// rows that break it: first len(Keys) key columns, then one column per
// entry of Cols. Its column names must be unique: it runs as a derived
// table, ordered by its keys.
type Query struct {
	Name string   // the Problem's Check
	Unit string   // what a row is: "warehouse", "trade" …
	Keys []string // labels of the key columns: "w", "d" …
	Cols []Column
	SQL  string
}

// Rule is q checked on c, its errors prefixed with prefix (the checking
// package's name).
func (q Query) Rule(c engine.SQLConn, prefix string) Rule {
	return Rule{Name: q.Name, Check: func(ctx context.Context) ([]workload.Problem, error) {
		p, err := q.Problem(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", prefix, err)
		}
		if p == nil {
			return nil, nil
		}
		return []workload.Problem{*p}, nil
	}}
}

// Problem runs q on c and turns its rows into a Problem, nil when there
// are none. A second query counts the rows when there are more than
// MaxDetails. Errors name q.
func (q Query) Problem(ctx context.Context, c engine.SQLConn) (*workload.Problem, error) {
	order := make([]string, len(q.Keys))
	for i := range order {
		order[i] = strconv.Itoa(i + 1)
	}
	text := "SELECT * FROM (" + q.SQL + ") v ORDER BY " + strings.Join(order, ", ") +
		" LIMIT " + strconv.Itoa(MaxDetails+1)
	var rows []string
	err := c.QueryRows(ctx, text, nil, func(row []any) error {
		if len(row) != len(q.Keys)+len(q.Cols) {
			return fmt.Errorf("query returned %d columns, want %d", len(row), len(q.Keys)+len(q.Cols))
		}
		rows = append(rows, q.Format(row))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q.Name, err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	n := int64(len(rows))
	if len(rows) > MaxDetails {
		rows = rows[:MaxDetails]
		if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM ("+q.SQL+") v", nil, &n); err != nil {
			return nil, fmt.Errorf("%s: counting: %w", q.Name, err)
		}
	}
	detail := strings.Join(rows, "; ")
	if int64(len(rows)) < n {
		detail += "; …"
	}
	unit := q.Unit + "s"
	if n == 1 {
		unit = q.Unit
	}
	detail += fmt.Sprintf(" (%d %s in all)", n, unit)
	return &workload.Problem{Check: q.Name, Detail: detail}, nil
}

// Format prints one violating row: "district w=1 d=3: d_ytd 30000.00,
// sum(h_amount) 29990.00", or "warehouse 3: …" for a single key.
func (q Query) Format(row []any) string {
	var b strings.Builder
	b.WriteString(q.Unit)
	for i, k := range q.Keys {
		b.WriteByte(' ')
		if len(q.Keys) > 1 {
			b.WriteString(k + "=")
		}
		b.WriteString(formatValue(Text, row[i]))
	}
	b.WriteByte(':')
	first := true
	for i, col := range q.Cols {
		v := formatValue(col.Kind, row[len(q.Keys)+i])
		if col.Label == "" && (v == "" || v == "null") {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteByte(' ')
		if col.Label != "" {
			b.WriteString(col.Label + " ")
		}
		b.WriteString(v)
	}
	return b.String()
}

// formatValue prints v, one of the types engine.SQLConn.QueryRows
// returns, as k says.
func formatValue(k Kind, v any) string {
	if v == nil {
		return "null"
	}
	var f float64
	switch x := v.(type) {
	case []byte:
		return formatValue(k, string(x))
	case int64:
		if k != Money {
			return strconv.FormatInt(x, 10)
		}
		f = float64(x)
	case float64:
		f = x
		if k != Money {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	case string:
		if k == Text {
			return x
		}
		g, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return x
		}
		if k == Int {
			return strconv.FormatFloat(g, 'f', -1, 64)
		}
		f = g
	default:
		return fmt.Sprint(v)
	}
	if f == 0 {
		f = 0 // no "-0.00"
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}
