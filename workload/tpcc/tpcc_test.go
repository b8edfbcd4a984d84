package tpcc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mysql"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
)

func parse(t *testing.T, args ...string) *TPCC {
	t.Helper()
	w := New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	return w
}

// open opens a run of w, which needs no database.
func open(t *testing.T, w *TPCC) *workload.Run {
	t.Helper()
	r, err := w.Open(context.Background(), workload.RunEnv{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestValidate(t *testing.T) {
	if errs := parse(t).Define().Validate(); len(errs) != 0 {
		t.Errorf("defaults: %v", errs)
	}
	errs := parse(t, "--warehouses", "0", "--mode", "nonsense").Define().Validate()
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	got := strings.Join(msgs, "; ")
	for _, want := range []string{"--warehouses 0: must be at least 1", "--mode nonsense: must be client or procedure"} {
		if !strings.Contains(got, want) {
			t.Errorf("Validate() = %q; want it to contain %q", got, want)
		}
	}
}

func TestTablesBatches(t *testing.T) {
	w := parse(t, "--warehouses", "3")
	tables := w.Define().Tables(sqlite.Dialect{})
	if len(tables) != 9 {
		t.Fatalf("%d tables, want 9", len(tables))
	}
	for _, tb := range tables {
		want := 3
		if tb.Name == "item" {
			want = 1
		}
		if tb.Batches != want {
			t.Errorf("%s: %d batches, want %d", tb.Name, tb.Batches, want)
		}
	}
}

// span builds a span of the five ops with the given counts.
func span(length time.Duration, final bool, counts [numOps]int64, noRollbacks int64, counters []int64) workload.Span {
	s := workload.Span{Length: length, Final: final, Counters: counters}
	for i, n := range counts {
		h := histogram.New()
		for j := int64(0); j < n; j++ {
			_ = h.RecordValue(int64(i+1) * 1000 * (j%10 + 1)) // i+1 .. 10(i+1) ms
		}
		o := workload.OpSpan{Name: opNames[i], Count: n, Hist: h}
		if i == opNewOrder {
			o.Rollbacks = noRollbacks
		}
		s.Ops = append(s.Ops, o)
	}
	return s
}

func metric(ms []result.Metric, name string) (result.Metric, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return result.Metric{}, false
}

// A hand-computed example: in 30 s, sum(d_next_o_id) grew by 500 and
// dbarena completed 520 New-Orders, 10 of them rolled back, and 480, 40,
// 40 and 40 of the other types.
func TestMetricsArithmetic(t *testing.T) {
	w := open(t, parse(t, "--warehouses", "10"))
	ms := w.Metrics(span(30*time.Second, true, [numOps]int64{520, 480, 40, 40, 40}, 10, []int64{500}))
	for name, want := range map[string]float64{
		MetricNOPM:       1000, // 500 / 0.5 min
		MetricNOPMClient: 1020, // (520 - 10) / 0.5
		MetricTPM:        2240, // 1120 / 0.5
	} {
		if m, ok := metric(ms, name); !ok || m.Value != want {
			t.Errorf("%s = %v (present %v), want %v", name, m.Value, ok, want)
		}
	}
	if _, ok := metric(ms, MetricTpmC); ok {
		t.Errorf("tpmC reported without --wait: %v", ms)
	}
	// Counters that could not be read: no NOPM, the rest still there.
	ms = w.Metrics(span(30*time.Second, false, [numOps]int64{520, 480, 40, 40, 40}, 10, nil))
	if _, ok := metric(ms, MetricNOPM); ok {
		t.Errorf("NOPM without counters: %v", ms)
	}
	if m, _ := metric(ms, MetricTPM); m.Value != 2240 {
		t.Errorf("TPM = %v, want 2240", m.Value)
	}
}

// Under --wait: tpmC counts rolled-back New-Orders too; efficiency is
// tpmC over 12.86 per warehouse; each type's p90 is checked.
func TestMetricsWait(t *testing.T) {
	w := open(t, parse(t, "--warehouses", "2", "--wait"))
	ms := w.Metrics(span(2*time.Minute, true, [numOps]int64{40, 38, 4, 4, 4}, 1, []int64{39}))
	if m, _ := metric(ms, MetricTpmC); m.Value != 20 {
		t.Errorf("tpmC = %v, want 20", m.Value)
	}
	// 20 / 25.72 = 77.76%
	if m, _ := metric(ms, MetricEfficiency); math.Abs(m.Value-77.76) > 0.005 || m.Unit != "%" {
		t.Errorf("efficiency = %v %s, want 77.76 %%", m.Value, m.Unit)
	}
	for i, name := range opNames {
		m, ok := metric(ms, "p90 "+name)
		if !ok || m.Limit == nil || m.Pass == nil {
			t.Fatalf("p90 %s missing or without limit: %+v", name, m)
		}
		// Values are (i+1) … 10(i+1) ms, all far below 5 s.
		if !*m.Pass || m.Value < float64(i+1) || m.Value > float64(10*(i+1))+0.1 {
			t.Errorf("p90 %s = %v (pass %v)", name, m.Value, *m.Pass)
		}
	}
	if m, _ := metric(ms, "p90 stock_level"); *m.Limit != 20000 {
		t.Errorf("stock_level limit %v, want 20000 ms", *m.Limit)
	}
	// A slow New-Order fails its limit.
	s := span(time.Minute, true, [numOps]int64{10, 10, 1, 1, 1}, 0, nil)
	s.Ops[opNewOrder].Hist.Reset()
	for j := 0; j < 10; j++ {
		_ = s.Ops[opNewOrder].Hist.RecordValue(6_000_000) // 6 s
	}
	if m, _ := metric(w.Metrics(s), "p90 new_order"); *m.Pass {
		t.Errorf("p90 new_order %v ms passes a 5 s limit", m.Value)
	}
	// Interval spans carry no p90 verdicts.
	if _, ok := metric(w.Metrics(span(time.Second, false, [numOps]int64{1, 1, 0, 0, 0}, 0, nil)), "p90 new_order"); ok {
		t.Error("p90 verdict on an interval")
	}
}

func TestCustomerByName(t *testing.T) {
	for n, want := range map[int]int64{1: 0, 2: 0, 3: 1, 4: 1, 5: 2, 6: 2} {
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = int64(i)
		}
		if got, ok := customerByName(ids); !ok || got != want {
			t.Errorf("%d customers: position %d, want %d (ceil(n/2), 1-based)", n, got, want)
		}
	}
	if _, ok := customerByName(nil); ok {
		t.Error("no customers: found one")
	}
}

func testTerminal(t *testing.T, args ...string) *terminal {
	r := parse(t, args...).newRun()
	nw := r.opts.warehouses
	return &terminal{run: r, r: rand.New(rand.NewPCG(7, 0)), cRun: r.cRun, wID: 1, dID: 1, warehouses: int64(nw), card: len(deck),
		q: &workload.Queries{}}
}

func TestDeckMix(t *testing.T) {
	tm := testTerminal(t)
	var n [numOps]int
	for i := 0; i < 23*100; i++ {
		n[tm.draw()]++
	}
	if want := [numOps]int{1000, 1000, 100, 100, 100}; n != want {
		t.Errorf("2300 draws = %v, want %v", n, want)
	}
	// Minimum percentages of clause 5.2.3: Payment 43%, the others 4%.
	for op, min := range map[int]float64{opPayment: 43, opOrderStatus: 4, opDelivery: 4, opStockLevel: 4} {
		if p := 100 * float64(n[op]) / 2300; p < min {
			t.Errorf("%s %.2f%% < %v%%", opNames[op], p, min)
		}
	}
}

func TestPause(t *testing.T) {
	if d := testTerminal(t).Pause(); d != 0 {
		t.Errorf("without --wait Pause = %v", d)
	}
	tm := testTerminal(t, "--wait")
	first := tm.Pause()
	if first != keying[tm.next] {
		t.Errorf("first pause %v, want keying time %v only", first, keying[tm.next])
	}
	for i := 0; i < 2000; i++ {
		tm.last, tm.started = tm.next, true
		prev := tm.next
		d := tm.Pause()
		think := d - keying[tm.next]
		if think < 0 || think > 10*meanThink[prev] {
			t.Fatalf("think time %v after %s outside [0, %v]", think, opNames[prev], 10*meanThink[prev])
		}
	}
}

func TestNewOrderInput(t *testing.T) {
	tm := testTerminal(t, "--warehouses", "5")
	rollbacks, remote, lines := 0, 0, 0
	const n = 20000
	for i := 0; i < n; i++ {
		in := tm.newOrderInput()
		if len(in.lines) < 5 || len(in.lines) > 15 {
			t.Fatalf("%d lines", len(in.lines))
		}
		for j, l := range in.lines {
			lines++
			if l.supplyWID != tm.wID {
				remote++
			}
			if l.qty < 1 || l.qty > 10 {
				t.Fatalf("quantity %d", l.qty)
			}
			if l.iID == unusedItem && j != len(in.lines)-1 {
				t.Fatalf("unused item not last")
			}
			if j > 0 && l.iID != unusedItem && (l.supplyWID < in.lines[j-1].supplyWID || (l.supplyWID == in.lines[j-1].supplyWID && l.iID < in.lines[j-1].iID)) {
				t.Fatalf("lines not sorted: %+v", in.lines)
			}
		}
		if in.rollback != (in.lines[len(in.lines)-1].iID == unusedItem) {
			t.Fatalf("rollback %v but last item %d", in.rollback, in.lines[len(in.lines)-1].iID)
		}
		if in.rollback {
			rollbacks++
		}
	}
	if p := 100 * float64(rollbacks) / n; p < 0.7 || p > 1.3 {
		t.Errorf("%.2f%% rollbacks, want about 1%%", p)
	}
	if p := 100 * float64(remote) / float64(lines); p < 0.8 || p > 1.2 {
		t.Errorf("%.2f%% remote lines, want about 1%%", p)
	}
	// One warehouse: never remote.
	one := testTerminal(t)
	for i := 0; i < 1000; i++ {
		for _, l := range one.newOrderInput().lines {
			if l.supplyWID != 1 {
				t.Fatal("remote supply warehouse with one warehouse")
			}
		}
	}
}

// Spec.Metrics names exactly what a whole run's Metrics report when every
// transaction type ran and the counter was read, with and without --wait.
func TestMetricNames(t *testing.T) {
	for _, args := range [][]string{nil, {"--wait"}} {
		t.Run(strings.Join(append([]string{"args"}, args...), " "), func(t *testing.T) {
			w := parse(t, args...)
			spec := w.Define()
			s := workload.Span{Length: time.Minute, Final: true, Counters: make([]int64, len(spec.Counters.Names))}
			for _, op := range spec.Ops {
				h := histogram.New()
				_ = h.RecordValue(1000)
				s.Ops = append(s.Ops, workload.OpSpan{Name: op.Name, Count: 1, Hist: h})
			}
			var got []string
			for _, m := range open(t, w).Metrics(s) {
				got = append(got, m.Name)
			}
			if strings.Join(got, ", ") != strings.Join(spec.Metrics, ", ") {
				t.Errorf("Run.Metrics names %q, Spec.Metrics %q", got, spec.Metrics)
			}
		})
	}
}

// Supports refuses, before any work, procedure mode where there are no
// stored procedures and a --pipeline asked for where connections send one
// statement per round trip; the default --pipeline runs everywhere.
func TestSupports(t *testing.T) {
	engines := []struct {
		name string
		caps engine.Capabilities
	}{
		{"sqlite", sqlite.Dialect{}.Capabilities()},
		{"mysql", mysql.Dialect{}.Capabilities()},
		{"postgres", postgres.Dialect{}.Capabilities()},
	}
	cases := []struct {
		args []string
		// refused names the flag each engine refuses, "" when it
		// accepts the options.
		refused map[string]string
	}{
		{nil, nil},
		{[]string{"--pipeline=false"}, nil},
		{[]string{"--pipeline"}, map[string]string{"sqlite": "pipeline", "mysql": "pipeline"}},
		{[]string{"--pipeline=true", "--mode", ModeProcedure}, map[string]string{"sqlite": "mode"}},
		{[]string{"--mode", ModeProcedure}, map[string]string{"sqlite": "mode"}},
	}
	for _, c := range cases {
		for _, e := range engines {
			t.Run(e.name+" "+strings.Join(append([]string{"args"}, c.args...), " "), func(t *testing.T) {
				errs := parse(t, c.args...).Define().Supports(e.caps)
				want := c.refused[e.name]
				if want == "" {
					if len(errs) != 0 {
						t.Errorf("Supports = %v, want none", errs)
					}
					return
				}
				var oe *workload.OptionError
				if len(errs) != 1 || !errors.As(errs[0], &oe) || oe.Flag != want || !strings.Contains(oe.Err, e.name) {
					t.Fatalf("Supports = %v, want one OptionError naming --%s and %s", errs, want, e.name)
				}
				if want == "pipeline" && !strings.Contains(oe.Err, "PostgreSQL only") {
					t.Errorf("Supports = %v, want it to say pipelines run on PostgreSQL only", errs)
				}
			})
		}
	}
}
