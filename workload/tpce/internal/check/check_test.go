package check

import (
	"strings"
	"testing"
)

// Rows name their keys and values the way each engine returns them.
func TestFormat(t *testing.T) {
	broker := rule{unit: "broker", keys: []string{"b_id"},
		cols: []column{{"b_num_trades", kInt}, {"completed trades", kInt}, {"b_comm_total", kMoney}, {"sum(t_comm)", kMoney}}}
	hs := rule{unit: "holding_summary", keys: []string{"ca_id", "symbol"}, cols: []column{{"hs_qty", kInt}, {"sum(h_qty)", kInt}}}
	per := perKey("daily_market", "dm_s_symb", 1305, "security", "s_symb", "security")
	cases := []struct {
		r    rule
		row  []any
		want string
	}{
		{broker, []any{int64(3), int64(11), int64(10), "123.40", []byte("120.1")}, "broker 3: b_num_trades 11, completed trades 10, b_comm_total 123.40, sum(t_comm) 120.10"},
		{broker, []any{int64(3), int64(0), nil, float64(-0.0), float64(0)}, "broker 3: b_num_trades 0, completed trades null, b_comm_total 0.00, sum(t_comm) 0.00"},
		{hs, []any{int64(11), "AAAB", nil, "300"}, "holding_summary ca_id=11 symbol=AAAB: hs_qty null, sum(h_qty) 300"},
		{per, []any{[]byte("AAAB"), int64(1304), ""}, "security AAAB: daily_market rows 1304"},
		{per, []any{"ZZZ", int64(2), "not in security"}, "security ZZZ: daily_market rows 2, not in security"},
	}
	for _, c := range cases {
		if got := c.r.format(c.row); got != c.want {
			t.Errorf("format(%v) = %q, want %q", c.row, got, c.want)
		}
	}
}

// Every rule has a distinct name, and the per-key rules name what they
// count.
func TestRuleNames(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range rules(true) {
		if seen[r.name] {
			t.Errorf("two rules named %q", r.name)
		}
		seen[r.name] = true
	}
	if !seen[RuleTradeRequest] || len(rules(false)) != len(rules(true))-1 {
		t.Error("the trade_request rule is not the one rule checked only at load")
	}
	if got := PerRule("daily_market", 1305, "security"); got != "rows: daily_market = 1305 per security" {
		t.Errorf("PerRule = %q", got)
	}
	if got := RowsRule("charge", 15, ""); got != "rows: charge = 15" {
		t.Errorf("RowsRule = %q", got)
	}
	if !strings.Contains(RowsRule("customer_account", 5000, "5 per customer"), "(5 per customer)") {
		t.Error("RowsRule leaves out why")
	}
}
