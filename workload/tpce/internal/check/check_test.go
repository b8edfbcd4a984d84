package check

import (
	"strings"
	"testing"
)

// A per-key rule's row prints its count, and its note when it has one.
func TestFormat(t *testing.T) {
	per := perKey("daily_market", "dm_s_symb", 1305, "security", "s_symb", "security")
	cases := []struct {
		row  []any
		want string
	}{
		{[]any{[]byte("AAAB"), int64(1304), ""}, "security AAAB: daily_market rows 1304"},
		{[]any{"ZZZ", int64(2), "not in security"}, "security ZZZ: daily_market rows 2, not in security"},
	}
	for _, c := range cases {
		if got := per.Format(c.row); got != c.want {
			t.Errorf("Format(%v) = %q, want %q", c.row, got, c.want)
		}
	}
}

// Every rule has a distinct name, and the per-key rules name what they
// count.
func TestRuleNames(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range queries(true) {
		if seen[r.Name] {
			t.Errorf("two rules named %q", r.Name)
		}
		seen[r.Name] = true
	}
	if !seen[RuleTradeRequest] || len(queries(false)) != len(queries(true))-1 {
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
