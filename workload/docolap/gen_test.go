package docolap_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/workload/docolap"
)

// sample is the events the shape tests look at: n from event first on.
// The populations of actors and repositories grow with the events: a
// sample from the third day on draws from 100,000 actors.
func sample(t *testing.T, first, n int64) (*docolap.Generator, [][]byte) {
	t.Helper()
	g := docolap.NewGenerator(42, first+n)
	out := make([][]byte, n)
	for i := range n {
		out[i] = g.AppendEvent(nil, first+i)
	}
	return g, out
}

// later is where the samples of the types and skew tests start.
const later = 2000000

type envelope struct {
	ID    *string `json:"id"`
	Type  *string `json:"type"`
	Actor *struct {
		ID           *int64  `json:"id"`
		Login        *string `json:"login"`
		GravatarID   *string `json:"gravatar_id"`
		URL          *string `json:"url"`
		AvatarURL    *string `json:"avatar_url"`
		DisplayLogin *string `json:"display_login"`
	} `json:"actor"`
	Repo *struct {
		ID   *int64  `json:"id"`
		Name *string `json:"name"`
		URL  *string `json:"url"`
	} `json:"repo"`
	Payload   map[string]json.RawMessage `json:"payload"`
	Public    *bool                      `json:"public"`
	CreatedAt *string                    `json:"created_at"`
	Org       *struct {
		ID    *int64  `json:"id"`
		Login *string `json:"login"`
	} `json:"org"`
}

// TestEnvelope checks every event's envelope against the 2015 format:
// the members in order, id a numeric string increasing with the index,
// the actor without display_login (added after 2015), gravatar_id empty,
// the URLs built from login and name, public true, created_at in whole
// UTC seconds, never decreasing, and org only on some events, present
// as an object (never null) and naming the repository's owner; ids and
// names pair one to one.
func TestEnvelope(t *testing.T) {
	g, events := sample(t, 0, 10000)
	created := regexp.MustCompile(`^2015-01-01T\d\d:\d\d:\d\dZ$`)
	var lastID int64
	var lastT string
	orgs := 0
	// Ids and names pair one to one: actors' logins, repositories'
	// names, organizations' logins.
	pairs := map[string]map[int64]string{"actor": {}, "repo": {}, "org": {}}
	names := map[string]map[string]int64{"actor": {}, "repo": {}, "org": {}}
	pair := func(i int, kind string, id int64, name string) {
		if n, ok := pairs[kind][id]; ok && n != name {
			t.Fatalf("event %d: %s %d is %s and %s", i, kind, id, n, name)
		}
		if d, ok := names[kind][name]; ok && d != id {
			t.Fatalf("event %d: %s %s is %d and %d", i, kind, name, d, id)
		}
		pairs[kind][id], names[kind][name] = name, id
	}
	for i, raw := range events {
		var ev envelope
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatalf("event %d: %v: %s", i, err, raw)
		}
		keys := topKeys(t, raw)
		want := []string{"id", "type", "actor", "repo", "payload", "public", "created_at"}
		if ev.Org != nil {
			want = append(want, "org")
			orgs++
			if !strings.HasPrefix(*ev.Repo.Name, *ev.Org.Login+"/") {
				t.Fatalf("event %d: org %s does not own %s", i, *ev.Org.Login, *ev.Repo.Name)
			}
		}
		if !slices.Equal(keys, want) {
			t.Fatalf("event %d: members %v, want %v", i, keys, want)
		}
		id, err := strconv.ParseInt(*ev.ID, 10, 64)
		if err != nil || id <= lastID {
			t.Fatalf("event %d: id %q after %d", i, *ev.ID, lastID)
		}
		if id != g.ID(int64(i)) {
			t.Fatalf("event %d: id %d, ID says %d", i, id, g.ID(int64(i)))
		}
		lastID = id
		pair(i, "actor", *ev.Actor.ID, *ev.Actor.Login)
		pair(i, "repo", *ev.Repo.ID, *ev.Repo.Name)
		if ev.Org != nil {
			pair(i, "org", *ev.Org.ID, *ev.Org.Login)
		}
		a := ev.Actor
		if a.DisplayLogin != nil || *a.GravatarID != "" || *a.URL != "https://api.github.com/users/"+*a.Login ||
			*a.AvatarURL != "https://avatars.githubusercontent.com/u/"+strconv.FormatInt(*a.ID, 10)+"?" {
			t.Fatalf("event %d: actor %s", i, raw)
		}
		if *ev.Repo.URL != "https://api.github.com/repos/"+*ev.Repo.Name || strings.Count(*ev.Repo.Name, "/") != 1 {
			t.Fatalf("event %d: repo %s", i, raw)
		}
		if ev.Payload == nil || !*ev.Public || !created.MatchString(*ev.CreatedAt) || *ev.CreatedAt < lastT {
			t.Fatalf("event %d after %s: %s", i, lastT, raw)
		}
		if ts, _ := time.Parse(time.RFC3339, *ev.CreatedAt); ts.Unix() != g.Time(int64(i)) {
			t.Fatalf("event %d: created_at %s, Time says %d", i, *ev.CreatedAt, g.Time(int64(i)))
		}
		lastT = *ev.CreatedAt
	}
	if share := float64(orgs) / float64(len(events)); share < 0.1 || share > 0.5 {
		t.Errorf("%.1f %% of the events carry org", 100*share)
	}
}

// topKeys lists a JSON object's members in order.
func topKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.Token()
	var keys []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// payloads are the payload members each type has in 2015.
var payloads = map[string][]string{
	"PushEvent":                     {"push_id", "size", "distinct_size", "ref", "head", "before", "commits"},
	"CreateEvent":                   {"ref", "ref_type", "master_branch", "description", "pusher_type"},
	"DeleteEvent":                   {"ref", "ref_type", "pusher_type"},
	"WatchEvent":                    {"action"},
	"ForkEvent":                     {"forkee"},
	"IssuesEvent":                   {"action", "issue"},
	"IssueCommentEvent":             {"action", "issue", "comment"},
	"PullRequestEvent":              {"action", "number", "pull_request"},
	"PullRequestReviewCommentEvent": {"action", "comment", "pull_request"},
	"CommitCommentEvent":            {"comment"},
	"GollumEvent":                   {"pages"},
	"ReleaseEvent":                  {"action", "release"},
	"MemberEvent":                   {"member", "action"},
	"PublicEvent":                   nil,
}

// TestTypesAndPayloads checks the mix of the 14 types against the
// shares the generator is built on (within 10 % of each share, bots'
// events set aside), each type's payload members, the sizes (tiny
// WatchEvents, IssuesEvents of about 3 KB, PullRequestEvents the
// largest), and that payload.issue appears on IssuesEvent and
// IssueCommentEvent only.
func TestTypesAndPayloads(t *testing.T) {
	_, events := sample(t, later, 30000)
	bots := docolap.BotLogins()
	count := map[string]int{}
	size := map[string]int{}
	human := 0
	for i, raw := range events {
		var ev struct {
			Type    string
			Actor   struct{ Login string }
			Payload json.RawMessage
		}
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		keys := topKeys(t, ev.Payload)
		if want, ok := payloads[ev.Type]; !ok || !slices.Equal(keys, want) {
			t.Fatalf("event %d: %s payload %v, want %v", i, ev.Type, keys, want)
		}
		if ok := slices.Contains(keys, "issue"); ok != (ev.Type == "IssuesEvent" || ev.Type == "IssueCommentEvent") {
			t.Fatalf("event %d: %s with issue %v", i, ev.Type, ok)
		}
		size[ev.Type] += len(raw)
		if slices.Contains(bots, ev.Actor.Login) {
			continue
		}
		human++
		count[ev.Type]++
	}
	if len(count) != 14 {
		t.Errorf("%d types: %v", len(count), count)
	}
	for _, typ := range docolap.EventTypes() {
		want := docolap.TypeShare(typ) * float64(human)
		if got := float64(count[typ.String()]); math.Abs(got-want) > 0.1*want+3*math.Sqrt(want) {
			t.Errorf("%s: %.0f events, want about %.0f", typ, got, want)
		}
	}
	avg := func(typ string) int { return size[typ] / max(1, count[typ]) }
	if a := avg("WatchEvent"); a > 600 {
		t.Errorf("WatchEvent: %d bytes on average", a)
	}
	if a := avg("IssuesEvent"); a < 2000 || a > 4000 {
		t.Errorf("IssuesEvent: %d bytes on average, want about 3 KB", a)
	}
	for typ := range size {
		if typ != "PullRequestEvent" && typ != "PullRequestReviewCommentEvent" && avg(typ) >= avg("PullRequestEvent") {
			t.Errorf("%s (%d bytes) larger than PullRequestEvent (%d)", typ, avg(typ), avg("PullRequestEvent"))
		}
	}
	total := 0
	for _, n := range size {
		total += n
	}
	if a := total / len(events); a < 1500 || a > 4000 {
		t.Errorf("%d bytes per event on average, want about 2 KB", a)
	}
}

// TestSkew checks the heavy tails: the bots lead query C's ranking in
// their order, the busiest tenth of the actors and repositories make
// most of the events, and many repositories have a single event.
func TestSkew(t *testing.T) {
	_, events := sample(t, later, 40000)
	actors, repos := map[string]int{}, map[string]int{}
	for _, raw := range events {
		var ev struct {
			Actor struct{ Login string }
			Repo  struct{ Name string }
		}
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		actors[ev.Actor.Login]++
		repos[ev.Repo.Name]++
	}
	top := func(m map[string]int) []string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return m[b] - m[a] })
		return keys
	}
	bots := docolap.BotLogins()
	if got := top(actors)[:3]; !slices.Equal(got, bots[:3]) {
		t.Errorf("busiest actors %v, want the bots %v first", got, bots[:3])
	}
	share := func(m map[string]int, frac float64) float64 {
		keys := top(m)
		n := 0
		for _, k := range keys[:int(float64(len(keys))*frac)] {
			n += m[k]
		}
		return float64(n) / float64(len(events))
	}
	if s := share(actors, 0.1); s < 0.5 {
		t.Errorf("the busiest 10 %% of actors make %.0f %% of the events", 100*s)
	}
	if s := share(repos, 0.1); s < 0.4 {
		t.Errorf("the busiest 10 %% of repositories have %.0f %% of the events", 100*s)
	}
	single := 0
	for _, n := range repos {
		if n == 1 {
			single++
		}
	}
	if s := float64(single) / float64(len(repos)); s < 0.1 {
		t.Errorf("%.0f %% of repositories have one event", 100*s)
	}
}

// TestCalendar checks the volume per day: weekdays above weekends, 580 k
// a day on average, --days' events ending on the last day.
func TestCalendar(t *testing.T) {
	if docolap.EventsForDays(7) != 7*580000 {
		t.Errorf("a week has %d events, want 7 × 580,000", docolap.EventsForDays(7))
	}
	// 2015-01-01 is a Thursday: day 2 a Saturday, day 4 a Monday.
	if sat, mon := docolap.EventsPerDay(2), docolap.EventsPerDay(4); sat >= mon || float64(sat)/float64(mon) < 0.6 || float64(sat)/float64(mon) > 0.7 {
		t.Errorf("Saturday %d events, Monday %d", sat, mon)
	}
	n := docolap.EventsForDays(3)
	g := docolap.NewGenerator(1, n)
	last := time.Unix(g.Time(n-1), 0).UTC()
	first := time.Unix(g.Time(0), 0).UTC()
	if first.Format(time.DateOnly) != "2015-01-01" || last.Format(time.DateOnly) != "2015-01-03" {
		t.Errorf("events from %v to %v, want 2015-01-01 to 2015-01-03", first, last)
	}
	// The afternoon (UTC) is busier than the night.
	day := docolap.EventsPerDay(0)
	hour := func(h int64) int64 {
		var k int64
		for i := int64(0); i < day; i += 97 {
			if (g.Time(i)/3600)%24 == h {
				k++
			}
		}
		return k
	}
	if night, afternoon := hour(3), hour(15); afternoon < 2*night {
		t.Errorf("%d events at 03:00, %d at 15:00", night, afternoon)
	}
}

// TestDeterministic checks that an event depends on the seed and its
// index only: made in any order, on its own or in a run, in a data set of
// any size, it is the same; another seed makes other events. A hash pins the first events.
func TestDeterministic(t *testing.T) {
	g := docolap.NewGenerator(7, 10000)
	h := sha256.New()
	var buf []byte
	for i := range int64(2000) {
		buf = g.AppendEvent(buf[:0], i)
		h.Write(buf)
		h.Write([]byte{'\n'})
	}
	for _, i := range []int64{1999, 5, 0, 777} {
		a := g.AppendEvent(nil, i)
		b := docolap.NewGenerator(7, 10000).AppendEvent(make([]byte, 0, 10), i)
		if string(a) != string(b) {
			t.Fatalf("event %d differs between generators", i)
		}
		// A data set is the beginning of every larger one.
		if c := docolap.NewGenerator(7, 1e9).AppendEvent(nil, i); string(a) != string(c) {
			t.Fatalf("event %d differs in a larger data set", i)
		}
		if string(a) == string(docolap.NewGenerator(8, 10000).AppendEvent(nil, i)) {
			t.Fatalf("event %d is the same with another seed", i)
		}
	}
	const want = "1fc9809d9bf6ce55a852067afb234fb1db82d59241dbf0ad17295963a5f409d2"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("the first 2000 events hash to %s, want %s", got, want)
	}
}

// BenchmarkAppendEvent measures the generator on one core: events a
// second and megabytes of JSON a second, in a reused buffer.
func BenchmarkAppendEvent(b *testing.B) { benchmarkAppend(b, (*docolap.Generator).AppendEvent) }

// BenchmarkAppendEventBSON is the same for the BSON of the events.
func BenchmarkAppendEventBSON(b *testing.B) { benchmarkAppend(b, (*docolap.Generator).AppendEventBSON) }

func benchmarkAppend(b *testing.B, appendEvent func(*docolap.Generator, []byte, int64) []byte) {
	g := docolap.NewGenerator(1, 10000000)
	var buf []byte
	var bytes int64
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		buf = appendEvent(g, buf[:0], i)
		bytes += int64(len(buf))
		i++
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(i)/s, "docs/s")
	b.ReportMetric(float64(bytes)/s/1e6, "MB/s")
}

// BenchmarkTableRows measures a batch of the events table as the loader
// reads it: the rows of one batch, id and document.
func BenchmarkTableRows(b *testing.B) {
	w := docolap.New()
	if err := w.Define().Options.Parse([]string{"--events", "10000000"}); err != nil {
		b.Fatal(err)
	}
	tb := w.Define().Tables(nil)[0]
	var n int64
	for b.Loop() {
		src := tb.Rows(int(n % int64(tb.Batches)))
		for src.Next() {
			src.Values()
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "docs/s")
}
