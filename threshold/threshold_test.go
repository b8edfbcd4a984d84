package threshold

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

var tpccLike = Context{Workload: "tpcc", Ops: []string{"new_order", "payment"}, Metrics: []string{"NOPM", "TPM", "p90 new_order"}}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		expr    string
		op      string
		metric  string
		cmp     string
		limit   float64
		percent bool
	}{
		{"p99<50ms", "", "p99", "<", 50, false},
		{"p99 < 1.5s", "", "p99", "<", 1500, false},
		{"p99.9<=500us", "", "p999", "<=", 0.5, false},
		{"tps>1000", "", "tps", ">", 1000, false},
		{"tps>=1000/s", "", "tps", ">=", 1000, false},
		{"errors<0.1%", "", "errors", "<", 0.1, true},
		{"errors<5", "", "errors", "<", 5, false},
		{"retries<=10%", "", "retries", "<=", 10, true},
		{"rollbacks<2%", "", "rollbacks", "<", 2, true},
		{"retry_pct<5", "", "retry_pct", "<", 5, false},
		{"retry_pct<5%", "", "retry_pct", "<", 5, false},
		{"op:new_order p90<5ms", "new_order", "p90", "<", 5, false},
		{"P75<5ms", "", "p75", "<", 5, false},
		{"p99.99<1s", "", "p99.99", "<", 1000, false},
		{"op:payment errors<1%", "payment", "errors", "<", 1, true},
		{"op:payment max<=2s", "payment", "max", "<=", 2000, false},
		{"nopm>1000", "", "NOPM", ">", 1000, false},
		{"NOPM > 1e3", "", "NOPM", ">", 1000, false},
		{"p90 new_order<5000", "", "p90 new_order", "<", 5000, false},
		{"server_cpu_pct<90", "", "server_cpu_pct", "<", 90, false},
		{"avg<10ms", "", "mean", "<", 10, false},
		{"p99_ms<10ms", "", "p99", "<", 10, false},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			th, err := Parse(tc.expr, tpccLike)
			if err != nil {
				t.Fatal(err)
			}
			if th.Op != tc.op || th.Metric != tc.metric || th.Cmp != tc.cmp || th.Limit != tc.limit || th.Percent != tc.percent {
				t.Errorf("got op %q metric %q cmp %q limit %v percent %v", th.Op, th.Metric, th.Cmp, th.Limit, th.Percent)
			}
		})
	}
}

// Every bad expression is refused, saying what is wrong with it.
func TestParseRejects(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"", "empty"},
		{"   ", "empty"},
		{"p99", "no operator"},
		{"p99 50ms", "no operator"},
		{"p99==50ms", `bad operator "=="`},
		{"p99=50ms", `bad operator "="`},
		{"p99!=50ms", `bad operator "!="`},
		{"p99=<50ms", `bad operator "=<"`},
		{"p99<>50ms", `bad operator "<>"`},
		{"<50ms", "no metric"},
		{"p99<", "no limit"},
		{"p100<50ms", `unknown metric "p100"`},
		{"p0<50ms", "a percentile is above 0"},
		{"q99<50ms", `unknown metric "q99"`},
		{"latency<50ms", `unknown metric "latency"`},
		{"p99<50", "has no unit"},
		{"p99<50 parsecs", "bad limit"},
		{"p99<-5ms", "not negative"},
		{"tps>fast", "want a number"},
		{"tps>1000ms", `bad unit "ms"`},
		{"tps>10%", `bad unit "%"`},
		{"transactions>10%", "only errors, retries and rollbacks take a percentage"},
		{"errors<5ms", `bad unit "ms"`},
		{"errors<NaN", "want a number"},
		{"errors<Inf", "want a number"},
		{"nopm>1000ms", `bad unit "ms"`},
		{"op:new_order", "must be followed"},
		{"op:new_order ", "must be followed"},
		{"op:delivery p90<5ms", `op "delivery": tpcc has no such operation (it has new_order, payment)`},
		{"op:new_order qps>10", "qps has no value per operation"},
		{"op:new_order NOPM>10", "NOPM is the workload's own figure"},
		{"op:new_order p90<5", "has no unit"},
		{"op:new_order p91x<5ms", `unknown metric "p91x"`},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := Parse(tc.expr, tpccLike)
			if err == nil {
				t.Fatalf("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// ParseAll reports every bad expression at once, each naming the flag
// and the expression.
func TestParseAllReportsEvery(t *testing.T) {
	ts, errs := ParseAll([]string{"p99<50ms", "p98x<1ms", "tps>>1", "errors<1%"}, tpccLike)
	if len(ts) != 2 || len(errs) != 2 {
		t.Fatalf("got %d thresholds, errors %v", len(ts), errs)
	}
	for i, want := range []string{`--threshold p98x<1ms: unknown metric`, `--threshold tps>>1: bad operator ">>"`} {
		var oe *workload.OptionError
		if !errors.As(errs[i], &oe) || !strings.Contains(errs[i].Error(), want) {
			t.Errorf("error %d: %v, want an OptionError with %q", i, errs[i], want)
		}
	}
}

func sampleRun() *result.Run {
	return &result.Run{
		DurationS: 10, Transactions: 990, TPS: 99, Errors: 10, Retries: 40, Rollbacks: 9, RetryPct: 40.0 / 981 * 100, Reconnects: 1,
		LatencyMS: histogram.Latency{P50: 2, P95: 8, P99: 12.5, Max: 40},
		Ops: []result.Op{
			{Name: "new_order", Count: 500, Errors: 10, Retries: 30, Rollbacks: 9, LatencyMS: histogram.Latency{P50: 3, P95: 4.5, Max: 40}},
			{Name: "payment", Count: 490, Retries: 10, LatencyMS: histogram.Latency{P50: 1, Max: 20}},
		},
		Metrics: []result.Metric{{Name: "NOPM", Value: 2955}},
	}
}

func TestEvaluate(t *testing.T) {
	run := sampleRun()
	for _, tc := range []struct {
		expr     string
		observed float64
		pass     bool
	}{
		{"p99<50ms", 12.5, true},
		{"p99<12.5ms", 12.5, false},
		{"p99<=12.5ms", 12.5, true},
		{"tps>100", 99, false},
		{"tps>=99", 99, true},
		{"errors<1%", 1, false}, // 10 of 1000 attempts
		{"errors<=1%", 1, true}, // 10 of 1000 attempts
		{"errors<11", 10, true}, // a count
		{"retries<5%", 40.0 / 981 * 100, true},
		{"rollbacks<1%", 100 * 9.0 / 990, true},
		{"rollbacks<0.9%", 100 * 9.0 / 990, false},
		{"op:new_order errors<2%", 100 * 10.0 / 510, true},
		{"op:new_order p95<5ms", 4.5, true},
		{"op:payment tps>49", 49, false},
		{"op:payment errors<1", 0, true},
		{"NOPM>3000", 2955, false},
		{"reconnects<1", 1, false},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			th, err := Parse(tc.expr, tpccLike)
			if err != nil {
				t.Fatal(err)
			}
			got := Evaluate([]Threshold{th}, run)[0]
			if got.Expr != tc.expr || got.Observed == nil || *got.Observed != tc.observed || got.Pass == nil || *got.Pass != tc.pass {
				t.Errorf("got %+v (observed %v), want observed %v pass %v", got, deref(got.Observed), tc.observed, tc.pass)
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// A metric the run lacks fails its threshold, saying why.
func TestEvaluateAbsentFails(t *testing.T) {
	run := sampleRun()
	run.Metrics = nil
	for _, expr := range []string{"server_cpu_pct<90", "NOPM>1"} {
		th, err := Parse(expr, tpccLike)
		if err != nil {
			t.Fatal(err)
		}
		got := Evaluate([]Threshold{th}, run)[0]
		if got.Pass == nil || *got.Pass || got.Observed != nil || got.Note == "" {
			t.Errorf("%s: %+v, want a failure with a note", expr, got)
		}
	}
}

// A merged run's thresholds are judged again on its own figures; one on
// a workload metric the merge left out fails, saying so.
func TestJudgeAndCheck(t *testing.T) {
	run := sampleRun()
	run.Metrics = nil
	run.Thresholds = []result.Threshold{{Expr: "tps>50"}, {Expr: "NOPM>1"}, {Expr: "op:payment p50<2ms"}}
	Judge(run)
	want := []bool{true, false, true}
	for i, r := range run.Thresholds {
		if r.Pass == nil || *r.Pass != want[i] {
			t.Errorf("%s: %+v, want pass %v", r.Expr, r, want[i])
		}
	}
	if !strings.HasPrefix(run.Thresholds[1].Note, "not evaluated: ") {
		t.Errorf("note %q", run.Thresholds[1].Note)
	}
	f := &result.File{Runs: []result.Run{*run, *run}}
	err := Check(f)
	if !errors.Is(err, ErrFailed) || err.Error() != "thresholds failed: NOPM>1" {
		t.Errorf("Check: %v", err)
	}
	if err := Check(&result.File{Runs: []result.Run{*sampleRun()}}); err != nil {
		t.Errorf("no thresholds: %v", err)
	}
}

func TestAbortable(t *testing.T) {
	for expr, want := range map[string]bool{
		"errors<5": true, "errors<=5": true, "retries<100": true, "rollbacks<3": true, "reconnects<1": true, "max<2s": true,
		"op:new_order errors<1": true, "op:new_order max<1s": true,
		"transactions<100": true, "op:payment transactions<=5": true, "queries<10": true, "reads<1": true,
		"errors<1%": false, "errors>5": false, "p99<50ms": false, "p90<1s": false, "tps>10": false, "NOPM>1": false, "transactions>100": false, "retry_pct<5": false,
	} {
		th, err := Parse(expr, tpccLike)
		if err != nil {
			t.Fatal(err)
		}
		if got := th.Abortable(); got != want {
			t.Errorf("%s: Abortable %v, want %v", expr, got, want)
		}
	}
}

type recorded struct{ ticks int }

func (r *recorded) OnTick(runner.Tick) { r.ticks++ }

// tick is an interval of the two ops with the given errors and
// latencies (µs) of new_order.
func tick(warmup bool, errs int64, lat ...int64) *histogram.Interval {
	iv := histogram.NewInterval(2)
	iv.Ops[0].Counts.Errors = errs
	for _, v := range lat {
		_ = iv.Ops[0].Hist.RecordValue(v)
	}
	return iv
}

// Watch adds up the measured intervals and aborts the run in the first
// interval an abortable threshold is crossed in, once; the ticks still
// go on to the next observer.
func TestWatchAborts(t *testing.T) {
	ts, errs := ParseAll([]string{"p99<1ms", "errors<3", "op:new_order max<=2s"}, tpccLike)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	next := &recorded{}
	w := NewWatch(ts, next)
	var aborted []error
	ops := []workload.Op{{Name: "new_order"}, {Name: "payment"}}
	send := func(warmup bool, iv *histogram.Interval, at time.Duration) {
		w.OnTick(runner.Tick{Warmup: warmup, Ops: ops, Interval: iv, Elapsed: at, Abort: func(err error) { aborted = append(aborted, err) }})
	}
	send(true, tick(true, 5, 1000), time.Second) // warm-up: not counted
	send(false, tick(false, 1, 5000), 2*time.Second)
	send(false, tick(false, 1, 1_999_000), 3*time.Second)
	if len(aborted) != 0 {
		t.Fatalf("aborted early: %v", aborted)
	}
	send(false, tick(false, 1, 1000), 4*time.Second) // 3 errors
	send(false, tick(false, 9, 9_000_000), 5*time.Second)
	if len(aborted) != 1 {
		t.Fatalf("aborted %d times: %v", len(aborted), aborted)
	}
	var ae *AbortError
	if !errors.As(aborted[0], &ae) || ae.Expr != "errors<3" || ae.Observed != 3 || !errors.Is(aborted[0], ErrFailed) {
		t.Errorf("abort error %v", aborted[0])
	}
	if want := "stopped early: threshold errors<3 can no longer hold (3 at 4s)"; aborted[0].Error() != want {
		t.Errorf("message %q, want %q", aborted[0], want)
	}
	if next.ticks != 5 {
		t.Errorf("next saw %d ticks", next.ticks)
	}
	if NewWatch(ts[:1], next) != nil {
		t.Error("a watch for p99 alone, which cannot fail early")
	}
}

// Upper bounds on the transactions and queries so far abort too.
func TestWatchCounts(t *testing.T) {
	ops := []workload.Op{{Name: "new_order"}, {Name: "payment"}}
	for _, tc := range []struct {
		expr  string
		after int // intervals before the abort, each of 3 new_order transactions and 16 queries (10 reads)
	}{
		{"transactions<6", 2}, {"op:new_order transactions<=6", 3}, {"queries<=40", 3}, {"reads<11", 2},
	} {
		ts, errs := ParseAll([]string{tc.expr}, tpccLike)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		w := NewWatch(ts, nil)
		var n int
		var aborted error
		for n = 1; n <= 5 && aborted == nil; n++ {
			w.OnTick(runner.Tick{Ops: ops, Interval: interval3(), Abort: func(err error) { aborted = err }})
		}
		if aborted == nil || n-1 != tc.after {
			t.Errorf("%s: aborted %v after %d intervals, want after %d", tc.expr, aborted, n-1, tc.after)
		}
	}
}

func interval3() *histogram.Interval {
	iv := tick(false, 0, 100, 200, 300)
	iv.Queries = histogram.Queries{Reads: 10, Writes: 4, Other: 2}
	return iv
}

// The max latency of one op aborts once it is over its bound.
func TestWatchMax(t *testing.T) {
	ts, _ := ParseAll([]string{"op:new_order max<=2s"}, tpccLike)
	w := NewWatch(ts, nil)
	var aborted error
	ops := []workload.Op{{Name: "new_order"}, {Name: "payment"}}
	w.OnTick(runner.Tick{Ops: ops, Interval: tick(false, 0, 1_900_000), Abort: func(err error) { aborted = err }})
	if aborted != nil {
		t.Fatalf("aborted at 1.9s: %v", aborted)
	}
	w.OnTick(runner.Tick{Ops: ops, Interval: tick(false, 0, 2_100_000), Abort: func(err error) { aborted = err }})
	if aborted == nil {
		t.Fatal("not aborted at 2.1s")
	}
}

// A percentile the summary lacks (p90) is read from the ops' histograms:
// the op's own, or all of them merged.
func TestEvaluatePercentile(t *testing.T) {
	run := sampleRun()
	enc := func(vals ...int64) string {
		h := histogram.New()
		for _, v := range vals {
			_ = h.RecordValue(v)
		}
		s, err := histogram.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// new_order: 1..10 ms; payment: 100 ms ten times.
	run.Ops[0].HDR = enc(1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000)
	run.Ops[1].HDR = enc(100000, 100000, 100000, 100000, 100000, 100000, 100000, 100000, 100000, 100000)
	for _, tc := range []struct {
		expr     string
		observed float64
	}{
		{"op:new_order p90<10ms", 9}, // the 9th of 10 values
		{"op:new_order p91<10ms", 10},
		{"p45<10ms", 9},   // the 9th of 20 values
		{"p55<10ms", 100}, // the 11th
	} {
		th, err := Parse(tc.expr, tpccLike)
		if err != nil {
			t.Fatal(err)
		}
		got := Evaluate([]Threshold{th}, run)[0]
		if got.Observed == nil || *got.Observed < tc.observed || *got.Observed > tc.observed*1.001 {
			t.Errorf("%s: observed %v, want %v", tc.expr, deref(got.Observed), tc.observed)
		}
	}
}

// Each verdict names the unit of what it observed.
func TestEvaluateUnits(t *testing.T) {
	run := sampleRun()
	run.Metrics[0].Unit = "/min"
	for expr, want := range map[string]string{"p99<50ms": "ms", "errors<1%": "%", "errors<3": "count", "tps>1": "/s", "NOPM>1": "/min", "retry_pct<5": "%"} {
		th, err := Parse(expr, tpccLike)
		if err != nil {
			t.Fatal(err)
		}
		if got := Evaluate([]Threshold{th}, run)[0].Unit; got != want {
			t.Errorf("%s: unit %q, want %q", expr, got, want)
		}
	}
}
