package prom_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/prom"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/sysmon"
	"github.com/dbarena/dbarena/workload"
)

// scrape reads /metrics and parses it with Prometheus's text parser.
func scrape(t testing.TB, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := tryScrape(addr)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func tryScrape(addr string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("status %s: %s", resp.Status, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// sum adds the values of a family's series whose labels include match.
func sum(fams map[string]*dto.MetricFamily, name string, match map[string]string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
	var total float64
	for _, m := range f.Metric {
		ok := true
		for k, v := range match {
			found := false
			for _, l := range m.Label {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			ok = ok && found
		}
		if !ok {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.Counter.GetValue()
		case m.Gauge != nil:
			total += m.Gauge.GetValue()
		case m.Histogram != nil:
			total += float64(m.Histogram.GetSampleCount())
		}
	}
	return total
}

func interval(lat0, lat1 []int64, errs int64) *histogram.Interval {
	iv := histogram.NewInterval(2)
	for _, v := range lat0 {
		_ = iv.Ops[0].Hist.RecordValue(v)
	}
	for _, v := range lat1 {
		_ = iv.Ops[1].Hist.RecordValue(v)
	}
	iv.Ops[1].Counts.Errors = errs
	iv.Ops[0].Counts.Retries = 2
	iv.Ops[0].Counts.Rollbacks = 1
	iv.Queries = histogram.Queries{Reads: 10, Writes: 4, Other: 2}
	iv.Reconnects = 1
	iv.Ops[0].Counts.Late = 3
	iv.Skipped, iv.Dropped = 1, 2
	return iv
}

type lines struct{ n int }

func (l *lines) OnTick(runner.Tick) { l.n++ }

// The exporter's series: counters per phase and op, buckets filled from
// the HDR histograms, gauges of the current run, server and workload
// metrics, all parsed back by Prometheus's text parser; ticks go on to
// the next observer.
func TestExporter(t *testing.T) {
	e, err := prom.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	next := &lines{}
	obs := e.Observer(next)
	e.Begin(prom.Labels{Target: "pg", Workload: "tpcc", Run: "threads=4"}, 4)
	e.SetRate(250)
	ops := []workload.Op{{Name: "new_order"}, {Name: "payment"}}
	srv := sysmon.Interval{"server_cpu_pct": 42, sysmon.IntervalKey: 1}
	obs.OnTick(runner.Tick{Threads: 4, Elapsed: time.Second, Length: time.Second, Warmup: true, Ops: ops, Interval: interval([]int64{50}, nil, 0)})
	obs.OnTick(runner.Tick{Threads: 4, Elapsed: 2 * time.Second, Length: time.Second, Ops: ops, Interval: interval([]int64{50, 900, 3000}, []int64{200_000}, 1),
		Server: srv, Metrics: []result.Metric{{Name: "NOPM", Value: 120}}})
	obs.OnTick(runner.Tick{Threads: 4, Elapsed: 3 * time.Second, Length: time.Second, Ops: ops, Interval: interval([]int64{70_000_000}, nil, 0), Server: srv})
	if next.n != 3 {
		t.Errorf("the next observer saw %d ticks", next.n)
	}
	f := scrape(t, e.Addr())
	run := map[string]string{"target": "pg", "workload": "tpcc", "run": "threads=4"}
	measured := func(kv ...string) map[string]string {
		m := map[string]string{"phase": "measured"}
		for k, v := range run {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		name  string
		match map[string]string
		want  float64
	}{
		{"dbarena_transactions_total", measured("op", "new_order"), 4},
		{"dbarena_transactions_total", measured("op", "payment"), 1},
		{"dbarena_transactions_total", map[string]string{"phase": "warmup"}, 1},
		{"dbarena_errors_total", measured("op", "payment"), 1},
		{"dbarena_retries_total", measured(), 4},
		{"dbarena_rollbacks_total", measured("op", "new_order"), 2},
		{"dbarena_reconnects_total", measured(), 2},
		{"dbarena_queries_total", measured("kind", "read"), 20},
		{"dbarena_queries_total", measured("kind", "other"), 4},
		{"dbarena_latency_seconds", measured("op", "new_order"), 4},
		{"dbarena_threads", run, 4},
		{"dbarena_rate", run, 250},
		{"dbarena_late_total", measured("op", "new_order"), 6},
		{"dbarena_late_total", measured("op", "payment"), 0},
		{"dbarena_skipped_total", measured(), 2},
		{"dbarena_dropped_total", measured(), 4},
		{"dbarena_elapsed_seconds", run, 3},
		{"dbarena_warmup", run, 0},
		{"dbarena_server_cpu_pct", run, 42},
		{"dbarena_workload_metric", map[string]string{"name": "NOPM"}, 120},
	} {
		if got := sum(f, c.name, c.match); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.match, got, c.want)
		}
	}
	if f["dbarena_interval_s"] != nil {
		t.Error("sysmon's interval key served as a metric")
	}
	// Buckets: 50 µs, 900 µs and 3 ms, then 70 s (above every bound).
	var h *dto.Histogram
	for _, m := range f["dbarena_latency_seconds"].Metric {
		for _, l := range m.Label {
			if l.GetName() == "op" && l.GetValue() == "new_order" && strings.Contains(m.String(), "measured") {
				h = m.Histogram
			}
		}
	}
	if h == nil {
		t.Fatal("no histogram of new_order")
	}
	want := map[float64]uint64{0.0001: 1, 0.001: 2, 0.0025: 2, 0.005: 3, 60: 3}
	for _, b := range h.Bucket {
		if w, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != w {
			t.Errorf("bucket le=%g: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), w)
		}
	}
	if h.GetSampleCount() != 4 || h.GetSampleSum() < 70 || h.GetSampleSum() > 70.1 {
		t.Errorf("count %d, sum %g", h.GetSampleCount(), h.GetSampleSum())
	}

	// An ended run keeps its counters and loses its gauges.
	e.End()
	f = scrape(t, e.Addr())
	if got := sum(f, "dbarena_transactions_total", measured()); got != 5 {
		t.Errorf("after the end: %v transactions", got)
	}
	if f["dbarena_threads"] != nil || f["dbarena_server_cpu_pct"] != nil {
		t.Error("an ended run's gauges still served")
	}
}

// A shard's series carry its index, so that a Prometheus scraping every
// shard sums them; a process that is no shard has no shard label.
func TestShardLabel(t *testing.T) {
	for _, shard := range []string{"2", ""} {
		e, err := prom.Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		obs := e.Observer(nil)
		e.Begin(prom.Labels{Target: "pg", Workload: "tpcc", Run: "threads=4", Shard: shard}, 4)
		ops := []workload.Op{{Name: "new_order"}}
		obs.OnTick(runner.Tick{Threads: 4, Elapsed: time.Second, Length: time.Second, Ops: ops, Interval: interval([]int64{50}, nil, 0),
			Server: sysmon.Interval{"server_cpu_pct": 42, sysmon.IntervalKey: 1}})
		f := scrape(t, e.Addr())
		e.Close()
		for _, name := range []string{"dbarena_transactions_total", "dbarena_threads", "dbarena_server_cpu_pct"} {
			if f[name] == nil {
				t.Fatalf("shard %q: no %s", shard, name)
			}
			for _, m := range f[name].Metric {
				got, has := "", false
				for _, l := range m.Label {
					if l.GetName() == "shard" {
						got, has = l.GetValue(), true
					}
				}
				if got != shard || has != (shard != "") {
					t.Errorf("shard %q: %s has shard label %q (present %v)", shard, name, got, has)
				}
			}
		}
	}
}

// An address in use is refused at once, naming it.
func TestListenInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = prom.Listen(ln.Addr().String())
	if !errors.Is(err, prom.ErrListen) || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Errorf("got %v", err)
	}
}
