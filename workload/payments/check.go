package payments

import (
	"context"
	"fmt"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/internal/rules"
)

// checkSQL runs Check's rules on c, one query each, in order.
func (w *Payments) checkSQL(ctx context.Context, c engine.SQLConn) ([]workload.Problem, error) {
	return rules.Run(ctx, []rules.Rule{
		{Name: "accounts and total balance", Check: func(ctx context.Context) ([]workload.Problem, error) {
			var n int64
			var sum float64
			if err := c.QueryRow(ctx, "SELECT COUNT(*), COALESCE(SUM(balance), 0) FROM accounts", nil, &n, &sum); err != nil {
				return nil, err
			}
			var probs []workload.Problem
			want := float64(w.Accounts()) * w.InitialBalance()
			if n != int64(w.Accounts()) {
				probs = append(probs, workload.Problem{Check: "accounts", Detail: fmt.Sprintf("%d accounts, want --accounts %d", n, w.Accounts())})
			}
			if diff := sum - want; diff > 0.005 || diff < -0.005 {
				probs = append(probs, workload.Problem{Check: "total balance", Detail: fmt.Sprintf("the balances sum to %.2f, want %.2f (%d × %.2f)", sum, want, w.Accounts(), w.InitialBalance())})
			}
			return probs, nil
		}},
		countRule(c, "no negative balance", "SELECT COUNT(*) FROM accounts WHERE balance < 0", "%d accounts below zero"),
		countRule(c, "transfers reference accounts", "SELECT COUNT(*) FROM transfers t LEFT JOIN accounts f ON f.id = t.from_account LEFT JOIN accounts a ON a.id = t.to_account WHERE f.id IS NULL OR a.id IS NULL",
			"%d transfers name an account that does not exist"),
	})
}

// countRule is the rule called name that query, which counts the rows
// breaking it, returns 0; its Problem's Detail is detail with the count.
func countRule(c engine.SQLConn, name, query, detail string) rules.Rule {
	return rules.Rule{Name: name, Check: func(ctx context.Context) ([]workload.Problem, error) {
		var n int64
		if err := c.QueryRow(ctx, query, nil, &n); err != nil {
			return nil, err
		}
		if n > 0 {
			return []workload.Problem{{Check: name, Detail: fmt.Sprintf(detail, n)}}, nil
		}
		return nil, nil
	}}
}
