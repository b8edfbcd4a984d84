package script

import (
	"context"
	"errors"
	"fmt"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
)

// InitPgbench is the value of --init that makes pgbench's four tables
// the workload's.
const InitPgbench = "pgbench"

// dataOptions are the options that define the data: --init and --scale.
func dataOptions() []string { return []string{"init", "scale"} }

// accountsPerBranch, tellersPerBranch are pgbench's rows per unit of
// scale: one branch, 10 tellers, 100,000 accounts.
const (
	tellersPerBranch  = 10
	accountsPerBranch = 100000
)

// tables are, under --init pgbench, pgbench's four tables with the rows
// pgbench -i writes: --scale branches, 10 tellers and 100,000 accounts
// per branch, balances 0, accounts' filler blank and the others' NULL,
// history empty; the primary keys pgbench -i adds (aid is a bigint from
// scale 20,000, as pgbench's). Without --init there are none: scripts
// work on tables of their own.
func (w *Script) tables(engine.Dialect) []workload.Table {
	if w.init != InitPgbench {
		return nil
	}
	scale := int(w.scale)
	aidType := schema.Int
	if w.scale >= 20000 {
		aidType = schema.BigInt
	}
	filler := func(size int) schema.Column {
		return schema.Column{Name: "filler", Type: schema.Char, Size: size, Null: true}
	}
	balance := func(name string) schema.Column { return schema.Column{Name: name, Type: schema.Int, Null: true} }
	nullInt := func(name string) schema.Column { return schema.Column{Name: name, Type: schema.Int, Null: true} }
	return []workload.Table{
		{
			Schema: &schema.Table{Name: "pgbench_branches", PrimaryKey: []string{"bid"},
				Columns: []schema.Column{{Name: "bid", Type: schema.Int}, balance("bbalance"), filler(88)}},
			Batches: 1,
			Rows: func(int) engine.RowSource {
				return workload.FuncRows(scale, func(i int) []any { return []any{int64(i + 1), int64(0), nil} })
			},
		},
		{
			Schema: &schema.Table{Name: "pgbench_tellers", PrimaryKey: []string{"tid"},
				Columns: []schema.Column{{Name: "tid", Type: schema.Int}, nullInt("bid"), balance("tbalance"), filler(84)}},
			Batches: 1,
			Rows: func(int) engine.RowSource {
				return workload.FuncRows(scale*tellersPerBranch, func(i int) []any {
					return []any{int64(i + 1), int64(i/tellersPerBranch + 1), int64(0), nil}
				})
			},
		},
		{
			Schema: &schema.Table{Name: "pgbench_accounts", PrimaryKey: []string{"aid"},
				Columns: []schema.Column{{Name: "aid", Type: aidType}, nullInt("bid"), balance("abalance"), filler(84)}},
			// One batch per branch: its 100,000 accounts.
			Batches: scale,
			Rows: func(b int) engine.RowSource {
				row := make([]any, 4)
				return workload.FuncRows(accountsPerBranch, func(i int) []any {
					row[0], row[1], row[2], row[3] = int64(b*accountsPerBranch+i+1), int64(b+1), int64(0), ""
					return row
				})
			},
		},
		{
			Schema: &schema.Table{Name: "pgbench_history",
				Columns: []schema.Column{nullInt("tid"), nullInt("bid"), nullInt("aid"), nullInt("delta"),
					{Name: "mtime", Type: schema.Timestamp, Null: true}, filler(22)}},
		},
	}
}

// checkDoc is the Spec's CheckDoc: which invariant check verifies and why.
func (w *Script) checkDoc() string {
	if w.init != InitPgbench {
		return "check verifies pgbench's tables under --init pgbench; a script's own tables have no invariant dbarena knows."
	}
	return "The tpcb invariant of pgbench's tables (--init pgbench): Σ abalance = Σ tbalance = Σ bbalance = Σ pgbench_history.delta, " +
		"because pgbench's tpcb-like transaction adds its delta to one account, one teller and one branch and logs it; " +
		"and accounts, tellers and branches keep scale × 100000, × 10 and × 1 rows. " +
		"It holds after tpcb-like scripts only: a script that changes balances otherwise (only the accounts, say) breaks the sums with nothing wrong in the data."
}

// check verifies pgbench's tables under --init pgbench: the sums of the
// accounts', tellers' and branches' balances and of the history's deltas
// are equal (every tpcb-like transaction adds its delta to one of each
// and logs it), and no table lost or gained rows but the history.
func (w *Script) check(ctx context.Context, conn engine.Conn) ([]workload.Problem, error) {
	if w.init != InitPgbench {
		return nil, errors.New("script: check verifies pgbench's tables: give --init pgbench")
	}
	c, err := engine.SQL(conn)
	if err != nil {
		return nil, err
	}
	var sums [4]int64
	var counts [3]int64
	err = c.QueryRow(ctx, `SELECT
		(SELECT COALESCE(SUM(abalance), 0) FROM pgbench_accounts),
		(SELECT COALESCE(SUM(tbalance), 0) FROM pgbench_tellers),
		(SELECT COALESCE(SUM(bbalance), 0) FROM pgbench_branches),
		(SELECT COALESCE(SUM(delta), 0) FROM pgbench_history),
		(SELECT COUNT(*) FROM pgbench_accounts),
		(SELECT COUNT(*) FROM pgbench_tellers),
		(SELECT COUNT(*) FROM pgbench_branches)`, nil,
		&sums[0], &sums[1], &sums[2], &sums[3], &counts[0], &counts[1], &counts[2])
	if err != nil {
		return nil, err
	}
	var probs []workload.Problem
	workload.ReportCheck(ctx, 1, 2, "tpcb balances")
	workload.ReportCheck(ctx, 2, 2, "row counts")
	if sums[0] != sums[3] || sums[1] != sums[3] || sums[2] != sums[3] {
		probs = append(probs, workload.Problem{Check: "tpcb balances",
			Detail: fmt.Sprintf("Σ abalance %d, Σ tbalance %d, Σ bbalance %d, Σ history delta %d: not all equal", sums[0], sums[1], sums[2], sums[3])})
	}
	for i, want := range []int64{w.scale * accountsPerBranch, w.scale * tellersPerBranch, w.scale} {
		if counts[i] != want {
			name := []string{"pgbench_accounts", "pgbench_tellers", "pgbench_branches"}[i]
			probs = append(probs, workload.Problem{Check: "row counts",
				Detail: fmt.Sprintf("%s has %d rows, want %d at scale %d", name, counts[i], want, w.scale)})
		}
	}
	return probs, nil
}
