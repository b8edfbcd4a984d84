package jsonbench_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/jsonbench"
)

// published are JSONBench's answers at 1 M events (PostgreSQL's query
// results, m6i.8xlarge, bluesky_1m): Q1's events and Q2's creates and
// distinct users per collection.
var published = map[jsonbench.Collection]struct{ events, creates, users int }{
	jsonbench.Like:           {448944, 444523, 117617},
	jsonbench.Follow:         {360374, 337978, 63957},
	jsonbench.Post:           {90816, 86812, 50464},
	jsonbench.Repost:         {58540, 56993, 26581},
	jsonbench.Block:          {14040, 13838, 5785},
	jsonbench.Profile:        {11762, 5337, 5337},
	jsonbench.ListItem:       {8103, 7568, 1078},
	jsonbench.ListBlock:      {895, 860, 449},
	jsonbench.StarterPack:    {405, 104, 101},
	jsonbench.List:           {356, 259, 218},
	jsonbench.ThreadGate:     {255, 228, 196},
	jsonbench.PostGate:       {104, 101, 82},
	jsonbench.FeedGenerator:  {74, 10, 9},
	jsonbench.LabelerService: {4, 0, 0},
}

// TestPublishedDistributions generates 1 M events (their fields, not
// their JSON: under a second) and checks them against JSONBench's
// answers at 1 M: every collection's share of the events within 1
// percentage point of Q1's for those above 1 % (within 0.1 point for
// all of them, and the events without a commit too); the big
// collections' creates within 2 % of Q2's and their distinct users
// within 3 %; the capture from 16:25:49 UTC, about 814 s long, all in
// hour 16 as JSONBench's Q3 at 1 M, and times never going back by more
// than the gap between two events.
func TestPublishedDistributions(t *testing.T) {
	const n = 1000000
	g := jsonbench.NewGenerator(0, n)
	events := map[jsonbench.Collection]int{}
	creates := map[jsonbench.Collection]int{}
	users := map[jsonbench.Collection]map[string]bool{}
	noCommit := 0
	var first, last, prev int64
	for i := range int64(n) {
		ev := g.Event(i)
		if i == 0 {
			first = ev.TimeUS
		}
		if ev.TimeUS < prev-2000 {
			t.Fatalf("event %d at %d, %d µs before the previous one", i, ev.TimeUS, prev-ev.TimeUS)
		}
		prev, last = ev.TimeUS, max(last, ev.TimeUS)
		if ev.Kind != jsonbench.KindCommit {
			noCommit++
			continue
		}
		events[ev.Collection]++
		if ev.Operation == jsonbench.Create {
			creates[ev.Collection]++
			if users[ev.Collection] == nil {
				users[ev.Collection] = map[string]bool{}
			}
			users[ev.Collection][ev.DID] = true
		}
	}
	share := func(k int) float64 { return 100 * float64(k) / n }
	for c, p := range published {
		got, want := share(events[c]), share(p.events)
		if math.Abs(got-want) > 0.1 || (want > 1 && math.Abs(got-want) > 1) {
			t.Errorf("%s: %.3f %% of the events, JSONBench %.3f %%", c.NSID(), got, want)
		}
		if p.events < 10000 {
			continue
		}
		if r := float64(creates[c]) / float64(p.creates); math.Abs(r-1) > 0.02 {
			t.Errorf("%s: %d creates, JSONBench %d", c.NSID(), creates[c], p.creates)
		}
		if r := float64(len(users[c])) / float64(p.users); math.Abs(r-1) > 0.03 {
			t.Errorf("%s: %d users create, JSONBench %d", c.NSID(), len(users[c]), p.users)
		}
	}
	if got := share(noCommit); math.Abs(got-share(5328)) > 0.1 {
		t.Errorf("%.3f %% of the events without a commit, JSONBench 0.533 %%", got)
	}
	start := time.UnixMicro(first).UTC()
	if start.Format(time.DateTime) != "2024-11-21 16:25:49" {
		t.Errorf("capture starts at %v", start)
	}
	span := time.Duration(last-first) * time.Microsecond
	if span < 800*time.Second || span > 830*time.Second || time.UnixMicro(last).UTC().Hour() != 16 {
		t.Errorf("capture of 1 M events spans %v, to %v", span, time.UnixMicro(last).UTC())
	}
}

// TestHourProfile checks the capture beyond an hour: JSONBench's 1,000 M
// events span about 12 days (1,066,439 s from the first post to the
// last); the generated ones span 10 to 14 days, and each hour of the day
// has its share of them, the busiest (23:00 UTC) more than twice the
// quietest (09:00).
func TestHourProfile(t *testing.T) {
	g := jsonbench.NewGenerator(0, 1000000000)
	perHour := make([]int, 24)
	var last int64
	for i := int64(0); i < 1000000000; i += 997 {
		us := g.Event(i).TimeUS
		perHour[time.UnixMicro(us).UTC().Hour()]++
		last = us
	}
	days := float64(last-jsonbench.CaptureStartUS) / 86400e6
	if days < 10 || days > 14 {
		t.Errorf("1,000 M events span %.1f days", days)
	}
	if perHour[23] < 2*perHour[9] {
		t.Errorf("events per hour of day %v: 23:00 has %d, 09:00 %d", perHour, perHour[23], perHour[9])
	}
	for h := 1; h < 24; h++ {
		want := jsonbench.HourRate(h) / jsonbench.HourRate(9)
		got := float64(perHour[h]) / float64(perHour[9])
		if math.Abs(got/want-1) > 0.1 {
			t.Errorf("hour %d: %.2f times hour 9's events, want %.2f", h, got, want)
		}
	}
}

// TestDeterministic checks that an event depends on the seed and its
// index only, its did well formed (the busiest user's too): made in any order, by another generator or in a larger
// data set, it is the same; another seed makes other events. A hash pins
// the first events.
func TestDeterministic(t *testing.T) {
	g := jsonbench.NewGenerator(7, 10000)
	h := sha256.New()
	var buf []byte
	for i := range int64(2000) {
		buf = g.AppendDoc(buf[:0], i)
		h.Write(buf)
		h.Write([]byte{'\n'})
	}
	did := regexp.MustCompile(`^did:plc:[a-z2-7]{24}$`)
	for i := range int64(2000) {
		if d := g.Event(i).DID; !did.MatchString(d) || strings.Contains(d, "aaaaa") {
			t.Fatalf("event %d: did %q", i, d)
		}
	}
	for _, i := range []int64{1999, 5, 0, 777} {
		a := g.AppendDoc(nil, i)
		if b := jsonbench.NewGenerator(7, 10000).AppendDoc(make([]byte, 0, 10), i); string(a) != string(b) {
			t.Fatalf("event %d differs between generators", i)
		}
		if c := jsonbench.NewGenerator(7, 1e9).AppendDoc(nil, i); string(a) != string(c) {
			t.Fatalf("event %d differs in a larger data set", i)
		}
		if string(a) == string(jsonbench.NewGenerator(8, 10000).AppendDoc(nil, i)) {
			t.Fatalf("event %d is the same with another seed", i)
		}
	}
	const want = "a61c3adb33123ded0188095f24fd3964c3d56766dbb4702d881ff9791f48eefa"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("the first 2000 events hash to %s, want %s", got, want)
	}
}

// TestBadOptions checks that bad options are refused before any work,
// each naming its flag and value, all at once.
func TestBadOptions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // "flag value" of each error
	}{
		{[]string{"--docs", "0"}, []string{"docs 0"}},
		{[]string{"--docs", "-5"}, []string{"docs -5"}},
		{[]string{"--docs", "20000000000"}, []string{"docs 20000000000"}},
		{[]string{"--query", "Q1,Q6"}, []string{"query Q1,Q6"}},
		{[]string{"--docs", "0", "--query", "all,Q1"}, []string{"docs 0", "query all,Q1"}},
	} {
		w := jsonbench.New()
		if err := w.Define().Options.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		errs := w.Define().Validate()
		if len(errs) != len(tc.want) {
			t.Errorf("%v: %v, want %d errors", tc.args, errs, len(tc.want))
			continue
		}
		for i, err := range errs {
			var oe *workload.OptionError
			if !errors.As(err, &oe) || oe.Flag+" "+oe.Value != tc.want[i] {
				t.Errorf("%v: %v, want an option error on %s", tc.args, err, tc.want[i])
			}
		}
	}
	w := jsonbench.New()
	if err := w.Define().Options.Parse([]string{"--docs", "10", "--query", "q5, Q1"}); err != nil {
		t.Fatal(err)
	}
	if errs := w.Define().Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if qs, _ := w.QueryList(); len(qs) != 2 || qs[0].Name != "Q5" || qs[1].Name != "Q1" {
		t.Errorf("--query q5, Q1: %v", qs)
	}
}
