package oltp

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// check verifies what stays true of sbtest1..N after any run of this test
// (and of any sysbench test with the same options):
//
//   - each table exists and has the columns id, k, c, pad;
//   - no NULL in k, c or pad;
//   - c and pad hold 119 and 59 characters once trailing spaces are
//     trimmed (PostgreSQL pads CHAR(n) on output, MySQL strips) and, for
//     a sample of rows, follow the digit-group template;
//   - ids are >= 1 and k is >= 1;
//   - the row count: tests that neither insert nor delete, and
//     read_write/write_only whose delete+insert pairs run inside a
//     transaction, keep exactly --table-size rows with ids in
//     [1, table-size]; oltp_delete (and delete+insert under --skip-trx,
//     where an interrupted event can lose its row) only ever lowers the
//     count; oltp_insert only raises it.
//
// The row-count checks assume the tables were prepared with these options
// and last written by this test.
func (w *Test) check(ctx context.Context, conn engine.Conn) ([]workload.Problem, error) {
	if err := w.CheckOptions(); err != nil {
		return nil, err
	}
	c, err := engine.SQL(conn)
	if err != nil {
		return nil, err
	}
	var probs []workload.Problem
	for n := 1; n <= w.opts.tables; n++ {
		p, err := w.checkTable(ctx, c, n)
		if err != nil {
			return probs, err
		}
		probs = append(probs, p...)
		workload.ReportCheck(ctx, n, w.opts.tables, TableName(n)+": columns, no NULLs, c and pad's template, ids and k, "+w.rowRuleText())
	}
	return probs, nil
}

// RowCountRule says what a test does to the number of rows.
type RowCountRule uint8

const (
	RowsEqual   RowCountRule = iota // exactly table-size, ids 1..table-size
	RowsAtMost                      // <= table-size, ids within 1..table-size
	RowsAtLeast                     // >= the loaded rows; ids >= 1
)

// rowRuleText is RowRule in words.
func (w *Test) rowRuleText() string {
	switch w.RowRule() {
	case RowsAtMost:
		return fmt.Sprintf("at most %d rows", w.opts.tableSize)
	case RowsAtLeast:
		return "no fewer rows than loaded"
	}
	return fmt.Sprintf("exactly %d rows", w.opts.tableSize)
}

// checkDoc is the Spec's CheckDoc.
func (w *Test) checkDoc() string {
	what := "keeps exactly --table-size rows with ids 1..table-size: its deletes and inserts pair up in a transaction"
	switch w.RowRule() {
	case RowsAtMost:
		what = "only ever lowers the row count (its deletes may lose rows; with --skip-trx an interrupted delete+insert loses its row)"
	case RowsAtLeast:
		what = "only ever raises the row count"
	}
	return "Each sbtest table exists with id, k, c and pad, has no NULLs, c and pad of sysbench's length and digit-group template, ids and k ≥ 1; " +
		"and this test " + what + ". The row rule assumes the tables were prepared with these options and last written by this test."
}

// RowRule is what this test, with these options, does to the number of
// rows.
func (w *Test) RowRule() RowCountRule {
	switch w.v.kind {
	case EventInsert:
		return RowsAtLeast
	case EventDelete:
		return RowsAtMost
	}
	if w.v.delIns && w.opts.deleteInserts > 0 && !(w.v.trx && !w.opts.skipTrx) {
		return RowsAtMost
	}
	return RowsEqual
}

func (w *Test) checkTable(ctx context.Context, c engine.SQLConn, n int) ([]workload.Problem, error) {
	name := TableName(n)
	var probs []workload.Problem
	add := func(check, format string, args ...any) {
		probs = append(probs, workload.Problem{Check: check, Detail: name + ": " + fmt.Sprintf(format, args...)})
	}
	// queryErr turns a failed query into a Problem unless the context
	// ended, which is the caller's error and not the data's.
	queryErr := func(check string, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		add(check, "query failed: %v", err)
		return nil
	}

	var count int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM "+name, nil, &count); err != nil {
		if e := queryErr("table_exists", err); e != nil {
			return nil, e
		}
		return probs, nil // nothing else can be checked
	}

	{
		var cols []string
		err := c.QueryRows(ctx, c.Dialect().ColumnsSQL(), []any{name}, func(row []any) error {
			cols = append(cols, strings.ToLower(asString(row[0])))
			return nil
		})
		if err != nil {
			if e := queryErr("columns", err); e != nil {
				return nil, e
			}
		} else if got := strings.Join(cols, ","); got != "id,k,c,pad" {
			add("columns", "columns are (%s), want (id,k,c,pad)", got)
		}
	}
	if err := c.QueryRows(ctx, "SELECT id, k, c, pad FROM "+name+" WHERE id = -1", nil, func([]any) error { return nil }); err != nil {
		if e := queryErr("columns", err); e != nil {
			return nil, e
		}
		return probs, nil
	}

	var nulls int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM "+name+" WHERE k IS NULL OR c IS NULL OR pad IS NULL", nil, &nulls); err != nil {
		if e := queryErr("not_null", err); e != nil {
			return nil, e
		}
	} else if nulls > 0 {
		add("not_null", "%d rows with NULL in k, c or pad", nulls)
	}

	var badC, badPad int64
	if err := c.QueryRow(ctx, fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE LENGTH(TRIM(c)) <> %d", name, CLen), nil, &badC); err != nil {
		if e := queryErr("c_length", err); e != nil {
			return nil, e
		}
	} else if badC > 0 {
		add("c_length", "%d rows whose c is not %d characters long", badC, CLen)
	}
	if err := c.QueryRow(ctx, fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE LENGTH(TRIM(pad)) <> %d", name, PadLen), nil, &badPad); err != nil {
		if e := queryErr("pad_length", err); e != nil {
			return nil, e
		}
	} else if badPad > 0 {
		add("pad_length", "%d rows whose pad is not %d characters long", badPad, PadLen)
	}

	// Template check on a sample: the rows with the smallest ids.
	const sample = 1000
	var badPattern int64
	var firstBad any
	err := c.QueryRows(ctx, "SELECT id, c, pad FROM "+name+" WHERE id BETWEEN 1 AND ?", []any{int64(sample)}, func(row []any) error {
		if !MatchesTemplate(asString(row[1]), CGroups) || !MatchesTemplate(asString(row[2]), PadGroups) {
			if badPattern == 0 {
				firstBad = row[0]
			}
			badPattern++
		}
		return nil
	})
	if err != nil {
		if e := queryErr("c_pattern", err); e != nil {
			return nil, e
		}
	} else if badPattern > 0 {
		add("c_pattern", "%d of the rows with id <= %d have c or pad off the digit-group template (first: id %v)", badPattern, sample, firstBad)
	}

	var minID, maxID sql.NullInt64
	var minK sql.NullInt64
	if err := c.QueryRow(ctx, "SELECT MIN(id), MAX(id), MIN(k) FROM "+name, nil, &minID, &maxID, &minK); err != nil {
		if e := queryErr("id_range", err); e != nil {
			return nil, e
		}
		return probs, nil
	}
	if minID.Valid && minID.Int64 < 1 {
		add("id_range", "smallest id is %d, want >= 1", minID.Int64)
	}
	if minK.Valid && minK.Int64 < 1 {
		add("k_positive", "smallest k is %d, want >= 1", minK.Int64)
	}

	var max *int64
	if maxID.Valid {
		max = &maxID.Int64
	}
	w.CheckCount(add, count, max)
	return probs, nil
}

// MatchesTemplate reports whether s (trailing spaces ignored) is groups
// groups of 11 decimal digits joined by '-'.
func MatchesTemplate(s string, groups int) bool {
	s = strings.TrimRight(s, " ")
	if len(s) != groups*(groupLen+1)-1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i%(groupLen+1) == groupLen {
			if s[i] != '-' {
				return false
			}
		} else if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// asString reads a text value as the engines return it.
func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

// CheckCount applies the test's row-count rule to a table of count rows
// whose largest numeric id is maxID (nil when there is none), reporting
// each violation through add, on every engine family.
func (w *Test) CheckCount(add func(check, format string, args ...any), count int64, maxID *int64) {
	size := int64(w.opts.tableSize)
	loaded := size
	if !w.loadsRows() {
		loaded = 0
	}
	switch w.RowRule() {
	case RowsEqual:
		if count != size {
			add("row_count", "%d rows, want %d (--table-size)", count, size)
		}
		if maxID != nil && *maxID > size {
			add("id_range", "largest id is %d, want <= %d (--table-size)", *maxID, size)
		}
	case RowsAtMost:
		if count > size {
			add("row_count", "%d rows, want at most %d (--table-size)", count, size)
		}
		if maxID != nil && *maxID > size {
			add("id_range", "largest id is %d, want <= %d (--table-size)", *maxID, size)
		}
	case RowsAtLeast:
		if count < loaded {
			add("row_count", "%d rows, want at least %d", count, loaded)
		}
	}
}
