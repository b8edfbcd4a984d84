package result

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/histogram"
)

// openTick is one interval of a hand-made shard of an arrival-rate run:
// per transaction of op 0, its latency from the intended start and its
// service time (µs; the lag is the difference), and the arrivals skipped
// and dropped.
type openTick struct {
	lat, svc         []int64
	late             int64
	skipped, dropped int64
	offered          float64
}

// openShard builds a one-run file the way the runner does for an arrival
// rate: IntervalOf per tick, Fill for the run, the offered rates set.
func openShard(t *testing.T, start time.Time, ticks ...openTick) *File {
	t.Helper()
	f := shard(t, start, 1)
	total := histogram.NewInterval(len(opNames))
	run := Run{Threads: 4, StartedAt: start, Status: StatusComplete, Open: &Open{Arrival: "uniform", RateTPS: 100}}
	var offered float64
	for k, tk := range ticks {
		iv := histogram.NewInterval(len(opNames))
		o := &iv.Ops[0]
		o.Service, o.Lag = histogram.New(), histogram.New()
		for i := range tk.lat {
			for _, x := range []struct {
				h interface{ RecordValue(int64) error }
				v int64
			}{{o.Hist, tk.lat[i]}, {o.Service, tk.svc[i]}, {o.Lag, max(tk.lat[i]-tk.svc[i], 1)}} {
				if err := x.h.RecordValue(x.v); err != nil {
					t.Fatal(err)
				}
			}
		}
		o.Counts.Late = tk.late
		iv.Skipped, iv.Dropped = tk.skipped, tk.dropped
		out := IntervalOf(iv, time.Duration(k+1)*time.Second, time.Second, false)
		out.OfferedTPS = tk.offered
		offered += tk.offered
		run.Intervals = append(run.Intervals, out)
		total.Merge(iv)
	}
	run.Fill(total, opNames, time.Duration(len(ticks))*time.Second, 0)
	run.OfferedTPS = offered / float64(len(ticks))
	f.Runs = []Run{run}
	return f
}

// Two shards of an arrival-rate run merge exactly: late, skipped and
// dropped add up, the offered rates too, and the service times' and
// lags' percentiles are those of all the shards' values together.
func TestMergeOpen(t *testing.T) {
	a := openShard(t, t0,
		openTick{lat: []int64{100, 2_000_000, 300}, svc: []int64{90, 1500, 280}, late: 1, dropped: 2, offered: 100},
		openTick{lat: []int64{150}, svc: []int64{140}, skipped: 3, offered: 100})
	b := openShard(t, t0.Add(time.Second),
		openTick{lat: []int64{120, 130}, svc: []int64{110, 120}, offered: 100},
		openTick{lat: []int64{900_000, 170}, svc: []int64{400, 160}, late: 1, dropped: 1, offered: 100})
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Runs[0]
	if r.Late != 2 || r.Skipped != 3 || r.Dropped != 3 || r.OfferedTPS != 200 || r.Ops[0].Late != 2 {
		t.Errorf("merged late %d skipped %d dropped %d offered %v (op late %d), want 2, 3, 3, 200, 2", r.Late, r.Skipped, r.Dropped, r.OfferedTPS, r.Ops[0].Late)
	}
	if r.Open == nil || *r.Open != *a.Runs[0].Open {
		t.Errorf("merged open %+v, want the shards' %+v", r.Open, a.Runs[0].Open)
	}
	svc := []int64{90, 1500, 280, 140, 110, 120, 400, 160}
	for _, p := range []float64{50, 95, 100} {
		if got, want := histogram.Percentile(mustDecode(t, r.Ops[0].ServiceHDR), p), hdrPercentile(svc, p); got != want {
			t.Errorf("merged service p%v %v ms, want %v", p, got, want)
		}
	}
	if r.ServiceMS == nil || r.ServiceMS.Max != 1.5 || r.LagMS == nil || r.LagMS.Max < 1990 {
		t.Errorf("merged service %+v lag %+v, want max 1.5 ms and about 2 s", r.ServiceMS, r.LagMS)
	}
	if r.LatencyMS.Max < 1990 {
		t.Errorf("merged latency max %v ms, want the 2 s from the intended start", r.LatencyMS.Max)
	}
	iv := r.Intervals[1]
	if iv.OfferedTPS != 200 || iv.Late != 1 || iv.Skipped != 3 || iv.Dropped != 1 || iv.ServiceMS == nil || iv.ServiceMS.Max != 0.4 {
		t.Errorf("merged second interval %+v, want offered 200, 1 late, 3 skipped, 1 dropped, service max 0.4 ms", iv)
	}
	// Merging the merged file with itself doubles the counts and keeps
	// the percentiles.
	mm, err := Merge(m, twin(t, m))
	if err != nil {
		t.Fatal(err)
	}
	if d := mm.Runs[0]; d.Late != 4 || *d.ServiceMS != *r.ServiceMS || *d.LagMS != *r.LagMS || d.OfferedTPS != 400 {
		t.Errorf("self-merge: late %d service %+v lag %+v offered %v", d.Late, d.ServiceMS, d.LagMS, d.OfferedTPS)
	}

	// A closed shard and an open one are not shards of one run.
	closed := shard(t, t0, 1, tick{lat: [2][]int64{{100}, {}}})
	var me *MergeError
	if _, err := Merge(a, closed); !errors.As(err, &me) || me.Field != "runs[0].open" {
		t.Errorf("Merge(open, closed) = %v, want a MergeError on runs[0].open", err)
	}
	// A shard whose service histogram does not hold its count is refused.
	bad := openShard(t, t0, openTick{lat: []int64{100}, svc: []int64{90}, offered: 100})
	bad.Runs[0].Intervals[0].Ops[0].ServiceHDR = a.Runs[0].Intervals[0].Ops[0].ServiceHDR
	if _, err := Merge(a, bad); !errors.As(err, &me) || !strings.Contains(me.Field, "service_hdr") {
		t.Errorf("Merge with a wrong service histogram = %v, want a MergeError on its service_hdr", err)
	}
}

// A closed run's file has none of the open model's fields: files of the
// closed model read and write as before.
func TestClosedRunHasNoOpenFields(t *testing.T) {
	f := shard(t, t0, 1, tick{lat: [2][]int64{{100, 200}, {300}}, errors: 1})
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"open", "offered_tps", "late", "skipped", "dropped", "unstarted", "offered", "started", "unstarted_ms", "unstarted_hdr", "service_ms", "lag_ms", "service_hdr", "lag_hdr"} {
		if strings.Contains(string(b), `"`+k+`"`) {
			t.Errorf("a closed run's file has %q", k)
		}
	}
}

// Rebuilding a killed run from its logged intervals keeps the open
// model's counts and histograms.
func TestRebuildOpen(t *testing.T) {
	f := openShard(t, t0,
		openTick{lat: []int64{100, 2_000_000}, svc: []int64{90, 1500}, late: 1, dropped: 2, offered: 100},
		openTick{lat: []int64{150}, svc: []int64{140}, skipped: 3, offered: 50})
	want := f.Runs[0]
	r, err := RebuildRun(&RunStart{Threads: 4, StartedAt: t0, Ops: opNames, Open: want.Open}, slices.Clone(want.Intervals))
	if err != nil {
		t.Fatal(err)
	}
	if r.Open != want.Open {
		t.Errorf("rebuilt open %+v, want the run's %+v", r.Open, want.Open)
	}
	if r.Late != 1 || r.Skipped != 3 || r.Dropped != 2 || r.OfferedTPS != 75 || *r.ServiceMS != *want.ServiceMS || *r.LagMS != *want.LagMS || r.Ops[0].ServiceHDR != want.Ops[0].ServiceHDR {
		t.Errorf("rebuilt %+v, want the run's late, skipped, dropped, offered and histograms", r)
	}
}

func mustDecode(t *testing.T, s string) *hdr.Histogram {
	t.Helper()
	h, err := histogram.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
