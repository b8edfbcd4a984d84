// Package check verifies the consistency of the TPC-E-like workload's
// database: the row counts the population fixes (the fixed tables' exact
// sizes, the scaling tables' counts per customer, company and security),
// and the rules that tie the trades to what they leave behind (settlement,
// history, cash transactions, holdings, broker totals).
//
// Every rule is one SQL query through engine.SQLConn that returns only
// the rows that break it, built from aggregates joined to their owners so
// that it reads each table once, whatever the number of customers; a rule
// becomes one workload.Problem naming the first MaxDetails rows.
package check

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/internal/rules"
)

// MaxDetails is how many violating rows a Problem's Detail names; the
// Detail always says how many there are in all.
const MaxDetails = rules.MaxDetails

// Sizes the rules check (the specification's cardinalities).
const (
	LoadUnit              = 1000 // customers per Load Unit
	AccountsPerCustomer   = 5    // customer_account rows per customer, exact per Load Unit
	CompaniesPerLU        = 500
	SecuritiesPerLU       = 685
	BrokersPerLU          = 10
	DaysPerSecurity       = 1305 // daily_market rows per security
	FinancialsPerCompany  = 20
	NewsPerCompany        = 2 // news_item rows and news_xref rows per company
	TaxratesPerCustomer   = 2
	WatchListsPerCustomer = 1
	LastTradesPerSecurity = 1
	Exchanges             = 4 // exchange rows, each with its address
)

// Trade statuses the rules read.
const (
	statusCompleted = "CMPT"
	statusSubmitted = "SBMT"
	statusPending   = "PNDG"
)

// Fixed are the exact row counts of the tables whose size does not depend
// on the number of customers.
var Fixed = []struct {
	Table string
	Rows  int64
}{
	{"charge", 15}, {"commission_rate", 240}, {"exchange", 4}, {"industry", 102}, {"sector", 12},
	{"status_type", 5}, {"taxrate", 320}, {"trade_type", 5}, {"zip_code", 14741},
}

// Config is what the rules need to know of the data.
type Config struct {
	// Customers is the number of customers the database was prepared
	// with (a multiple of LoadUnit).
	Customers int64
	// MaxInitialTradeID is the largest t_id of the initial trades. A
	// trade above it was made by a run: the rules that hold only on a
	// freshly loaded database (an empty trade_request) are then not
	// checked.
	MaxInitialTradeID int64
}

// Rule names, as they appear in workload.Problem.Check.
const (
	RuleSettlementOrphan = "every settlement belongs to a completed trade (with the rule above: settlement rows = trade rows at load)"
	RuleSettlement       = "every completed trade has its settlement"
	RuleHistory          = "every completed trade has its history (PNDG for limit orders, SBMT, CMPT)"
	RuleCash             = "cash trades have their cash_transaction, margin trades none"
	RuleHoldingSummary   = "holding_summary.hs_qty = sum(holding.h_qty) per account and symbol"
	RuleBroker           = "broker b_num_trades and b_comm_total = count and sum(t_comm) of its accounts' completed trades"
	RuleTradeRequest     = "trade_request is empty at load"
	RuleCharge           = "every completed trade's t_chrg is the charge of its type for its customer's tier"
)

// RowsRule is the name of the rule that table holds want rows in all
// ("rows: charge = 15").
func RowsRule(table string, want int64, why string) string {
	s := "rows: " + table + " = " + strconv.FormatInt(want, 10)
	if why != "" {
		s += " (" + why + ")"
	}
	return s
}

// PerRule is the name of the rule that every row of parent owns n rows of
// child ("rows: daily_market = 1305 per security").
func PerRule(child string, n int, parent string) string {
	return fmt.Sprintf("rows: %s = %d per %s", child, n, parent)
}

// Check runs every rule and returns one Problem per violated rule; none
// means the database is consistent. The rules that hold only at load
// (RuleTradeRequest) are skipped when a trade has an id above
// cfg.MaxInitialTradeID. The error reports a query that could not run
// (the Problems found before it are returned with it). Check runs one
// query after the other on c, which must not be used concurrently.
func Check(ctx context.Context, c engine.SQLConn, cfg Config) ([]workload.Problem, error) {
	counts, err := totals(ctx, c, cfg)
	if err != nil {
		return counts, err
	}
	fresh, err := atLoad(ctx, c, cfg)
	if err != nil {
		return counts, err
	}
	rs := []rules.Rule{{Name: "row counts", Check: func(context.Context) ([]workload.Problem, error) { return counts, nil }}}
	for _, r := range queries(fresh) {
		rs = append(rs, r.Rule(c, "check"))
	}
	return rules.Run(ctx, rs)
}

// atLoad says whether the trades are the initial ones only: no t_id above
// the initial maximum.
func atLoad(ctx context.Context, c engine.SQLConn, cfg Config) (bool, error) {
	var n int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM trade WHERE t_id > ?", []any{cfg.MaxInitialTradeID}, &n); err != nil {
		return false, fmt.Errorf("check: trades after the load: %w", err)
	}
	return n == 0, nil
}

// total is a table's expected row count and why.
type total struct {
	table string
	want  int64
	why   string
}

// totals checks the tables whose whole row count the population fixes,
// in one query.
func totals(ctx context.Context, c engine.SQLConn, cfg Config) ([]workload.Problem, error) {
	lus := cfg.Customers / LoadUnit
	var want []total
	for _, f := range Fixed {
		want = append(want, total{f.Table, f.Rows, ""})
	}
	want = append(want,
		total{"customer", cfg.Customers, "--customers"},
		total{"customer_account", AccountsPerCustomer * cfg.Customers, fmt.Sprintf("%d per customer", AccountsPerCustomer)},
		total{"company", CompaniesPerLU * lus, fmt.Sprintf("%d per %d customers", CompaniesPerLU, LoadUnit)},
		total{"security", SecuritiesPerLU * lus, fmt.Sprintf("%d per %d customers", SecuritiesPerLU, LoadUnit)},
		total{"broker", BrokersPerLU * lus, fmt.Sprintf("%d per %d customers", BrokersPerLU, LoadUnit)},
		total{"news_item", NewsPerCompany * CompaniesPerLU * lus, fmt.Sprintf("%d per company", NewsPerCompany)},
		total{"address", cfg.Customers + CompaniesPerLU*lus + Exchanges, "one per customer, company and exchange"},
	)
	parts := make([]string, len(want))
	for i, w := range want {
		parts[i] = fmt.Sprintf("SELECT %d AS i, COUNT(*) AS n FROM %s", i, w.table)
	}
	got := make([]int64, len(want))
	seen := make([]bool, len(want))
	err := c.QueryRows(ctx, strings.Join(parts, " UNION ALL "), nil, func(row []any) error {
		i, ok1 := row[0].(int64)
		n, ok2 := row[1].(int64)
		if !ok1 || !ok2 || i < 0 || int(i) >= len(want) {
			return fmt.Errorf("unexpected row %v", row)
		}
		got[i], seen[i] = n, true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("check: row counts: %w", err)
	}
	var out []workload.Problem
	for i, w := range want {
		if !seen[i] {
			return out, fmt.Errorf("check: row counts: no count for %s", w.table)
		}
		if got[i] != w.want {
			out = append(out, workload.Problem{Check: RowsRule(w.table, w.want, w.why),
				Detail: fmt.Sprintf("%s has %d rows, want %d", w.table, got[i], w.want)})
		}
	}
	return out, nil
}

// How to print a value of a violating row.
const (
	kInt   = rules.Int   // integer (or null)
	kMoney = rules.Money // decimal with two places
	kText  = rules.Text  // a string, as it is
)

type column = rules.Column

// rule is one check whose query returns only violating rows: first
// len(Keys) key columns, then one column per entry of Cols.
type rule = rules.Query

// perKey is the rule that every row of parent (key pkey) owns exactly n
// rows of child (whose column ckey refers to it); a child row whose owner
// does not exist breaks it too.
func perKey(child, ckey string, n int, parent, pkey, unit string) rule {
	return rule{
		Name: PerRule(child, n, unit), Unit: unit, Keys: []string{pkey},
		Cols: []column{{child + " rows", kInt}, {"", kText}},
		SQL: fmt.Sprintf(`SELECT p.%[5]s AS k, COALESCE(c.n, 0) AS n, '' AS note
			FROM %[4]s p LEFT JOIN (SELECT %[2]s AS k, COUNT(*) AS n FROM %[1]s GROUP BY %[2]s) c ON c.k = p.%[5]s
			WHERE COALESCE(c.n, 0) <> %[3]d
			UNION ALL
			SELECT c.%[2]s AS k, COUNT(*) AS n, 'not in %[4]s' AS note
			FROM %[1]s c WHERE NOT EXISTS (SELECT 1 FROM %[4]s p WHERE p.%[5]s = c.%[2]s)
			GROUP BY c.%[2]s`, child, ckey, n, parent, pkey),
	}
}

// queries lists the rules after the row totals; atLoad adds those that hold
// only before a run.
func queries(atLoad bool) []rule {
	out := []rule{
		perKey("customer_taxrate", "cx_c_id", TaxratesPerCustomer, "customer", "c_id", "customer"),
		perKey("watch_list", "wl_c_id", WatchListsPerCustomer, "customer", "c_id", "customer"),
		perKey("financial", "fi_co_id", FinancialsPerCompany, "company", "co_id", "company"),
		perKey("news_xref", "nx_co_id", NewsPerCompany, "company", "co_id", "company"),
		perKey("last_trade", "lt_s_symb", LastTradesPerSecurity, "security", "s_symb", "security"),
		perKey("daily_market", "dm_s_symb", DaysPerSecurity, "security", "s_symb", "security"),
		{
			Name: RuleSettlement, Unit: "trade", Keys: []string{"t_id"},
			Cols: []column{{"", kText}},
			SQL: `SELECT t.t_id, 'completed, without settlement' AS what FROM trade t
				WHERE t.t_st_id = '` + statusCompleted + `'
				  AND NOT EXISTS (SELECT 1 FROM settlement s WHERE s.se_t_id = t.t_id)`,
		},
		{
			Name: RuleSettlementOrphan, Unit: "settlement", Keys: []string{"se_t_id"},
			Cols: []column{{"trade status", kText}},
			SQL: `SELECT s.se_t_id, COALESCE(t.t_st_id, 'no such trade') AS status
				FROM settlement s LEFT JOIN trade t ON t.t_id = s.se_t_id
				WHERE t.t_id IS NULL OR t.t_st_id <> '` + statusCompleted + `'`,
		},
		{
			Name: RuleHistory, Unit: "trade", Keys: []string{"t_id"},
			Cols: []column{{"t_tt_id", kText}, {"PNDG rows", kInt}, {"SBMT rows", kInt}, {"CMPT rows", kInt}},
			SQL: `SELECT t.t_id, t.t_tt_id, COALESCE(h.pndg, 0) AS pndg, COALESCE(h.sbmt, 0) AS sbmt, COALESCE(h.cmpt, 0) AS cmpt
				FROM trade t
				JOIN trade_type tt ON tt.tt_id = t.t_tt_id
				LEFT JOIN (SELECT th_t_id,
				             SUM(CASE WHEN th_st_id = '` + statusPending + `' THEN 1 ELSE 0 END) AS pndg,
				             SUM(CASE WHEN th_st_id = '` + statusSubmitted + `' THEN 1 ELSE 0 END) AS sbmt,
				             SUM(CASE WHEN th_st_id = '` + statusCompleted + `' THEN 1 ELSE 0 END) AS cmpt
				           FROM trade_history GROUP BY th_t_id) h ON h.th_t_id = t.t_id
				WHERE t.t_st_id = '` + statusCompleted + `'
				  AND (COALESCE(h.sbmt, 0) <> 1 OR COALESCE(h.cmpt, 0) <> 1
				       OR COALESCE(h.pndg, 0) <> CASE WHEN tt.tt_is_mrkt THEN 0 ELSE 1 END)`,
		},
		{
			Name: RuleCash, Unit: "trade", Keys: []string{"t_id"},
			Cols: []column{{"", kText}},
			SQL: `SELECT t.t_id, 'cash trade without cash_transaction' AS what FROM trade t
				WHERE t.t_st_id = '` + statusCompleted + `' AND t.t_is_cash
				  AND NOT EXISTS (SELECT 1 FROM cash_transaction c WHERE c.ct_t_id = t.t_id)
				UNION ALL
				SELECT c.ct_t_id, 'margin trade with cash_transaction' AS what FROM cash_transaction c
				JOIN trade t ON t.t_id = c.ct_t_id
				WHERE NOT t.t_is_cash`,
		},
		{
			Name: RuleHoldingSummary, Unit: "holding_summary", Keys: []string{"ca_id", "symbol"},
			Cols: []column{{"hs_qty", kInt}, {"sum(h_qty)", kInt}},
			SQL: `SELECT s.hs_ca_id, s.hs_s_symb, s.hs_qty, COALESCE(h.q, 0) AS sum_h_qty
				FROM holding_summary s
				LEFT JOIN (SELECT h_ca_id, h_s_symb, SUM(h_qty) AS q FROM holding GROUP BY h_ca_id, h_s_symb) h
				  ON h.h_ca_id = s.hs_ca_id AND h.h_s_symb = s.hs_s_symb
				WHERE s.hs_qty <> COALESCE(h.q, 0)
				UNION ALL
				SELECT h.h_ca_id, h.h_s_symb, NULL AS hs_qty, SUM(h.h_qty) AS sum_h_qty
				FROM holding h
				WHERE NOT EXISTS (SELECT 1 FROM holding_summary s WHERE s.hs_ca_id = h.h_ca_id AND s.hs_s_symb = h.h_s_symb)
				GROUP BY h.h_ca_id, h.h_s_symb`,
		},
		{
			Name: RuleCharge, Unit: "trade", Keys: []string{"t_id"},
			Cols: []column{{"t_chrg", kMoney}, {"ch_chrg", kMoney}},
			SQL: `SELECT t.t_id, t.t_chrg, ch.ch_chrg
				FROM trade t
				JOIN customer_account ca ON ca.ca_id = t.t_ca_id
				JOIN customer c ON c.c_id = ca.ca_c_id
				JOIN charge ch ON ch.ch_tt_id = t.t_tt_id AND ch.ch_c_tier = c.c_tier
				WHERE t.t_st_id = '` + statusCompleted + `' AND t.t_chrg <> ch.ch_chrg`,
		},
		{
			Name: RuleBroker, Unit: "broker", Keys: []string{"b_id"},
			Cols: []column{{"b_num_trades", kInt}, {"completed trades", kInt}, {"b_comm_total", kMoney}, {"sum(t_comm)", kMoney}},
			SQL: `SELECT b.b_id, b.b_num_trades, COALESCE(x.n, 0) AS n, b.b_comm_total, COALESCE(x.s, 0) AS s
				FROM broker b
				LEFT JOIN (SELECT ca.ca_b_id, COUNT(*) AS n, SUM(t.t_comm) AS s
				           FROM trade t JOIN customer_account ca ON ca.ca_id = t.t_ca_id
				           WHERE t.t_st_id = '` + statusCompleted + `'
				           GROUP BY ca.ca_b_id) x ON x.ca_b_id = b.b_id
				WHERE b.b_num_trades <> COALESCE(x.n, 0)
				   OR ROUND(b.b_comm_total, 2) <> ROUND(COALESCE(x.s, 0), 2)`,
		},
	}
	if atLoad {
		out = append(out, rule{
			Name: RuleTradeRequest, Unit: "trade_request", Keys: []string{"tr_t_id"},
			Cols: []column{{"tr_s_symb", kText}},
			SQL:  `SELECT tr_t_id, tr_s_symb FROM trade_request`,
		})
	}
	return out
}
