package consistency

import "testing"

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		kind kind
		v    any
		want string
	}{
		{kMoney, nil, "null"},
		{kMoney, int64(300000), "300000.00"},
		{kMoney, float64(-10), "-10.00"},
		{kMoney, 30000.049999999, "30000.05"},
		{kMoney, "123.40", "123.40"},
		{kMoney, []byte("-0.5"), "-0.50"},
		{kMoney, float64(-0.0), "0.00"},
		{kInt, int64(3001), "3001"},
		{kInt, float64(45), "45"}, // MySQL's SUM(int) is a DECIMAL
		{kInt, "45", "45"},
		{kInt, nil, "null"},
		{kText, "with ol_delivery_d", "with ol_delivery_d"},
		{kText, []byte("x"), "x"},
		{kText, nil, "null"},
		{kMoney, "abc", "abc"},
		{kInt, true, "true"},
	} {
		if got := formatValue(tc.kind, tc.v); got != tc.want {
			t.Errorf("formatValue(%d, %#v) = %q, want %q", tc.kind, tc.v, got, tc.want)
		}
	}
}

func TestFormatRow(t *testing.T) {
	w := &conditions[0]
	if got, want := w.format([]any{int64(3), 300123.45, "300100"}), "warehouse 3: w_ytd 300123.45, sum(d_ytd) 300100.00"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	d := &conditions[1]
	if got, want := d.format([]any{int64(1), int64(2), int64(3002), int64(3000), nil}), "district w=1 d=2: d_next_o_id 3002, max(o_id) 3000, max(no_o_id) null"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
