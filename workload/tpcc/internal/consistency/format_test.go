package consistency

import "testing"

func TestFormatRow(t *testing.T) {
	w := &conditions[0]
	if got, want := w.query().Format([]any{int64(3), 300123.45, "300100"}), "warehouse 3: w_ytd 300123.45, sum(d_ytd) 300100.00"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	d := &conditions[1]
	if got, want := d.query().Format([]any{int64(1), int64(2), int64(3002), int64(3000), nil}), "district w=1 d=2: d_next_o_id 3002, max(o_id) 3000, max(no_o_id) null"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
