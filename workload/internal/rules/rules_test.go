package rules

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/dbarena/dbarena/workload"
)

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		v    any
		want string
	}{
		{Money, nil, "null"},
		{Money, int64(300000), "300000.00"},
		{Money, float64(-10), "-10.00"},
		{Money, 30000.049999999, "30000.05"},
		{Money, "123.40", "123.40"},
		{Money, []byte("-0.5"), "-0.50"},
		{Money, float64(-0.0), "0.00"},
		{Money, "abc", "abc"},
		{Int, int64(3001), "3001"},
		{Int, float64(45), "45"}, // MySQL's SUM(int) is a DECIMAL
		{Int, "45", "45"},
		{Int, []byte("45.0"), "45"},
		{Int, nil, "null"},
		{Int, true, "true"},
		{Text, "with ol_delivery_d", "with ol_delivery_d"},
		{Text, []byte("x"), "x"},
		{Text, int64(7), "7"},
		{Text, nil, "null"},
	} {
		if got := formatValue(tc.kind, tc.v); got != tc.want {
			t.Errorf("formatValue(%d, %#v) = %q, want %q", tc.kind, tc.v, got, tc.want)
		}
	}
}

// Rows name their keys and values the way each engine returns them.
func TestFormat(t *testing.T) {
	broker := Query{Unit: "broker", Keys: []string{"b_id"},
		Cols: []Column{{"b_num_trades", Int}, {"completed trades", Int}, {"b_comm_total", Money}, {"sum(t_comm)", Money}}}
	hs := Query{Unit: "holding_summary", Keys: []string{"ca_id", "symbol"}, Cols: []Column{{"hs_qty", Int}, {"sum(h_qty)", Int}}}
	note := Query{Unit: "trade", Keys: []string{"t_id"}, Cols: []Column{{"", Text}}}
	for _, c := range []struct {
		q    Query
		row  []any
		want string
	}{
		{broker, []any{int64(3), int64(11), int64(10), "123.40", []byte("120.1")}, "broker 3: b_num_trades 11, completed trades 10, b_comm_total 123.40, sum(t_comm) 120.10"},
		{broker, []any{int64(3), int64(0), nil, float64(-0.0), float64(0)}, "broker 3: b_num_trades 0, completed trades null, b_comm_total 0.00, sum(t_comm) 0.00"},
		{hs, []any{int64(11), "AAAB", nil, "300"}, "holding_summary ca_id=11 symbol=AAAB: hs_qty null, sum(h_qty) 300"},
		{note, []any{int64(7), nil}, "trade 7:"},
		{note, []any{int64(7), "completed, without settlement"}, "trade 7: completed, without settlement"},
	} {
		if got := c.q.Format(c.row); got != c.want {
			t.Errorf("Format(%v) = %q, want %q", c.row, got, c.want)
		}
	}
}

// Run checks the rules in order, reports each one done, and stops at
// the first error with the problems found before it.
func TestRun(t *testing.T) {
	var reports []string
	ctx := workload.WithCheckProgress(context.Background(), func(done, total int, name string) {
		reports = append(reports, name+" "+string(rune('0'+done))+"/"+string(rune('0'+total)))
	})
	found := func(ps ...workload.Problem) func(context.Context) ([]workload.Problem, error) {
		return func(context.Context) ([]workload.Problem, error) { return ps, nil }
	}
	boom := errors.New("boom")
	a, b := workload.Problem{Check: "a", Detail: "1"}, workload.Problem{Check: "b", Detail: "2"}
	ps, err := Run(ctx, []Rule{
		{Name: "a", Check: found(a)},
		{Name: "none", Check: found()},
		{Name: "b", Check: func(context.Context) ([]workload.Problem, error) { return []workload.Problem{b}, boom }},
		{Name: "never", Check: func(context.Context) ([]workload.Problem, error) { t.Error("ran after an error"); return nil, nil }},
	})
	if !errors.Is(err, boom) || !reflect.DeepEqual(ps, []workload.Problem{a, b}) {
		t.Errorf("Run = %v, %v; want [a b], boom", ps, err)
	}
	if want := []string{"a 1/4", "none 2/4"}; !reflect.DeepEqual(reports, want) {
		t.Errorf("reports %q, want %q", reports, want)
	}
}
