package docolap

import (
	"math"
	"strconv"

	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// EventType is one of the 14 event types of 2015's GitHub Archive.
type EventType uint8

// The event types, in the order of their share of the events.
const (
	PushEvent EventType = iota
	CreateEvent
	WatchEvent
	IssueCommentEvent
	IssuesEvent
	PullRequestEvent
	ForkEvent
	PullRequestReviewCommentEvent
	GollumEvent
	DeleteEvent
	CommitCommentEvent
	MemberEvent
	ReleaseEvent
	PublicEvent
	numTypes
)

var typeNames = [numTypes]string{"PushEvent", "CreateEvent", "WatchEvent", "IssueCommentEvent", "IssuesEvent",
	"PullRequestEvent", "ForkEvent", "PullRequestReviewCommentEvent", "GollumEvent", "DeleteEvent",
	"CommitCommentEvent", "MemberEvent", "ReleaseEvent", "PublicEvent"}

// String is the type's name as the events carry it ("PushEvent").
func (t EventType) String() string {
	if t < numTypes {
		return typeNames[t]
	}
	return "EventType(" + strconv.Itoa(int(t)) + ")"
}

// EventTypes lists the 14 types.
func EventTypes() []EventType {
	out := make([]EventType, numTypes)
	for i := range out {
		out[i] = EventType(i)
	}
	return out
}

// typeWeights is the share of each type among the events that are not a
// bot's, in 1/10000: the 2013 daily mix with Follow and Gist events
// dropped (gone from the 2015 Events API) and ReleaseEvent added.
var typeWeights = [numTypes]int{4930, 1200, 1100, 900, 500, 400, 350, 150, 150, 150, 80, 50, 30, 10}

// TypeShare is the share of type t among the events of accounts that are
// not bots (the bots, about 2.2 % of the events, have mixes of their own).
func TypeShare(t EventType) float64 { return float64(typeWeights[t]) / 10000 }

// bot is one heavy automated account: share of all events in 1/100000,
// the types it emits (weights), and how many repositories it works on.
type bot struct {
	login string
	id    int64
	share int
	types []EventType
	wts   []int
	repos int
}

// bots are the heavy hitters: a Google Code migration account (2015's
// export tool opened issues by the thousand on migrated projects) and
// four automation accounts. They make the heads of queries A and C.
var bots = []bot{
	{"GoogleCodeExporter", 101, 800, []EventType{IssuesEvent, CreateEvent, PushEvent}, []int{70, 15, 15}, 300},
	{"mirror-bot", 102, 500, []EventType{PushEvent}, []int{1}, 40},
	{"deploy-bot", 103, 400, []EventType{PushEvent, CreateEvent, DeleteEvent}, []int{60, 25, 15}, 25},
	{"ci-reporter", 104, 300, []EventType{IssueCommentEvent}, []int{1}, 60},
	{"stats-bot", 105, 200, []EventType{PushEvent}, []int{1}, 10},
}

// BotLogins are the logins of the heavy automated accounts, heaviest
// first.
func BotLogins() []string {
	out := make([]string, len(bots))
	for i, b := range bots {
		out[i] = b.login
	}
	return out
}

// The calendar: 2015-01-01 (a Thursday) onwards, weekdays at 644,000
// events, weekends at 420,000: 580,000 a day on average, as the 212 M
// events of 2015 make.
const (
	epoch2015      = 1420070400 // 2015-01-01T00:00:00Z
	weekdayEvents  = 644000
	weekendEvents  = 420000
	firstEventID   = 2488340000 // about the first id of 2015
	firstPushID    = 536000000
	maxDays        = 3650
	minutesPerDay  = 1440
	secondsPerDay  = 86400
	botShareDenom  = 100000
	typeShareDenom = 10000
)

// EventsPerDay is how many events day d (0 = 2015-01-01) has.
func EventsPerDay(d int) int64 {
	if wd := (d + 4) % 7; wd == 6 || wd == 0 { // 2015-01-01 is a Thursday (4)
		return weekendEvents
	}
	return weekdayEvents
}

// EventsForDays is the number of events in the first days days.
func EventsForDays(days int) int64 {
	var n int64
	for d := 0; d < days; d++ {
		n += EventsPerDay(d)
	}
	return n
}

// Generator makes the events: event i (from 0) is a pure function of the
// seed and i, so any range of events can be made by any goroutine in any
// order, and a data set is the beginning of every larger one with the
// same seed. The populations of actors and repositories grow with i (see
// actorsAt), as accounts and projects accumulate over a year. A Generator
// is read-only after NewGenerator and safe for concurrent use; beyond the
// growth of dst, AppendEvent allocates only a few short strings (logins
// and names).
type Generator struct {
	seed uint64
	n    int64
	// dayStart[d] is the index of day d's first event (len: days+1).
	dayStart []int64
	// minuteCDF[m] is the share of a day's events before minute m.
	minuteCDF [minutesPerDay + 1]float64
	botCum    []int // cumulative bot shares, 1/100000
	typeCum   [numTypes]int
}

// NewGenerator returns the generator of n events with the given seed.
func NewGenerator(seed uint64, n int64) *Generator {
	g := &Generator{seed: seed, n: n}
	g.dayStart = []int64{0}
	for d := 0; g.dayStart[d] < n; d++ {
		g.dayStart = append(g.dayStart, g.dayStart[d]+EventsPerDay(d))
	}
	// A smooth day: the fewest events at 03:30 UTC, the most at 15:30,
	// when Europe and the Americas overlap.
	var sum float64
	for m := 0; m < minutesPerDay; m++ {
		sum += 1 + 0.6*math.Cos(2*math.Pi*(float64(m)+0.5-930)/minutesPerDay)
		g.minuteCDF[m+1] = sum
	}
	for m := range g.minuteCDF {
		g.minuteCDF[m] /= sum
	}
	c := 0
	for _, b := range bots {
		c += b.share
		g.botCum = append(g.botCum, c)
	}
	c = 0
	for t, w := range typeWeights {
		c += w
		g.typeCum[t] = c
	}
	return g
}

// Events is the number of events.
func (g *Generator) Events() int64 { return g.n }

// ID is event i's id (the number its "id" string holds): increasing with
// i, with gaps, as the 2015 ids (about 3.6 ids per archived event).
func (g *Generator) ID(i int64) int64 {
	r := g.rng(i)
	return firstEventID + i*36/10 + int64(r.Next()%3)
}

// Time is event i's created_at in Unix seconds: days follow each other
// from 2015-01-01 with their EventsPerDay, and a day's events are spread
// over its seconds by a smooth daily curve. Time never decreases with i.
func (g *Generator) Time(i int64) int64 {
	lo, hi := 0, len(g.dayStart)-1 // dayStart[lo] <= i < dayStart[hi]
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if g.dayStart[mid] <= i {
			lo = mid
		} else {
			hi = mid
		}
	}
	f := (float64(i-g.dayStart[lo]) + 0.5) / float64(EventsPerDay(lo))
	m, b := 0, minutesPerDay // minuteCDF[m] <= f < minuteCDF[b]
	for b-m > 1 {
		mid := (m + b) / 2
		if g.minuteCDF[mid] <= f {
			m = mid
		} else {
			b = mid
		}
	}
	w := (f - g.minuteCDF[m]) / (g.minuteCDF[m+1] - g.minuteCDF[m])
	s := min(int64(m)*60+int64(w*60), secondsPerDay-1)
	return epoch2015 + int64(lo)*secondsPerDay + s
}

// rng is event i's random stream (jsondoc.Stream): it depends on the
// seed and i only.
type rng = jsondoc.Rng

func mix(z uint64) uint64 { return jsondoc.Mix(z) }

func (g *Generator) rng(i int64) rng { return jsondoc.Stream(g.seed, i) }

// zipf draws ranks 0..n-1 with P(k) ∝ (k+v)^-s (s ≠ 1), by inverting the
// continuous law's distribution function.
type zipf struct {
	v, e, a float64 // offset, 1/(1-s), v^(1-s)
}

func newZipf(s, v float64) zipf { return zipf{v: v, e: 1 / (1 - s), a: math.Pow(v, 1-s)} }

func (z zipf) rank(u float64, n int64) int64 {
	span := z.a - math.Pow(float64(n)+z.v, 1/z.e)
	k := int64(math.Pow(z.a-u*span, z.e) - z.v)
	return min(max(k, 0), n-1)
}

// Hurwitz–Zipf laws with exponent 1.1: the offsets put the busiest
// ordinary actor at about 0.2 % of the events and the busiest repository
// at about 0.4 %, below the bots.
var (
	actorLaw = newZipf(1.1, 100)
	repoLaw  = newZipf(1.1, 50)
)

// actorsAt and reposAt are the populations event i draws its actor and
// repository from: a twentieth and a twelfth of the events so far, at
// least 10,000.
func actorsAt(i int64) int64 { return max(10000, (i+1)/20) }
func reposAt(i int64) int64  { return max(10000, (i+1)/12) }

// ident is an actor, organization or repository owner: id and login.
type ident struct {
	id    int64
	login string
}

var adjectives = [...]string{"quiet", "brave", "swift", "lucky", "bold", "calm", "dark", "eager", "fair", "gentle",
	"happy", "icy", "jolly", "keen", "lazy", "merry", "noble", "odd", "proud", "quick", "rapid", "sharp", "tidy", "urban",
	"vivid", "wild", "young", "zesty", "amber", "blue", "cosmic", "dusty"}

var nouns = [...]string{"fox", "otter", "falcon", "panda", "tiger", "koala", "lynx", "heron", "badger", "raven",
	"whale", "gecko", "moose", "bison", "crane", "dingo", "eagle", "ferret", "gopher", "hawk", "ibis", "jackal", "lemur",
	"marten", "newt", "ocelot", "puffin", "quail", "robin", "salmon", "toucan", "walrus"}

var projects = [...]string{"parser", "dotfiles", "blog", "api", "website", "toolkit", "engine", "scraper", "bot", "cli",
	"compiler", "notes", "game", "tracker", "server", "client", "plugin", "theme", "docs", "sdk", "dashboard", "crawler",
	"editor", "viewer", "player", "builder", "router", "cache", "queue", "monitor", "shell", "utils"}

var words = [...]string{"fix", "add", "update", "remove", "the", "a", "for", "in", "of", "and", "to", "with", "when",
	"bug", "test", "tests", "support", "readme", "config", "build", "error", "handling", "crash", "on", "startup",
	"refactor", "docs", "typo", "version", "release", "merge", "branch", "master", "feature", "issue", "page", "layout",
	"style", "cleanup", "code", "new", "old", "file", "files", "option", "options", "user", "users", "data", "parser",
	"memory", "leak", "performance", "improve", "missing", "broken", "link", "links", "example", "examples", "api", "call",
	"null", "value"}

var labels = [...][2]string{{"bug", "fc2929"}, {"enhancement", "84b6eb"}, {"question", "cc317c"}, {"duplicate", "cccccc"},
	{"wontfix", "ffffff"}, {"help wanted", "159818"}, {"invalid", "e6e6e6"}}

// actorIdent is ordinary actor rank k: ids grow with rank (the busiest
// accounts are the oldest), one login per id.
func actorIdent(k int64) ident {
	h := mix(uint64(k) ^ 0xa0761d6478bd642f)
	return ident{10000 + k, adjectives[h&31] + nouns[h>>5&31] + strconv.FormatInt(k, 10)}
}

// Repository ids: even for the ranked repositories (1,000,000 + 2k for
// rank k), odd for the ones created by an event (1,000,001 + 2i for event
// i: a CreateEvent of a repository or a ForkEvent's forkee, at most one
// per event), and odd beyond 2^41 for the forks that pull requests come
// from, one per author and repository (two may share an id: they are not
// queried).
func rankedRepoID(k int64) int64 { return 1000000 + 2*k }
func newRepoID(i int64) int64    { return 1000001 + 2*i }

func forkID(author, repo int64) int64 {
	return 1000001 + 2*(1<<40+int64(mix(uint64(author)<<32^uint64(repo))%(1<<40)))
}

// repoInfo is a repository: its id, owner, name, and the organization
// owning it (org.id 0: a user's).
type repoInfo struct {
	id    int64
	owner ident
	org   ident
	name  string // owner/project
}

// repoInfo is the ranked repository k (k ≥ 0), or, for k < 0, the
// repository created by event -k-1, which belongs to creator. Three in
// ten ranked repositories belong to an organization, the others to an
// actor; both are drawn from the populations there were when the
// repository's rank was reached. A name ends with the id in base 36, so
// names and ids pair one to one.
func (g *Generator) repoInfo(k int64, creator ident) repoInfo {
	var r repoInfo
	h := mix(uint64(k) ^ 0xe7037ed1a0b428db)
	switch {
	case k < 0:
		r.id = newRepoID(-k - 1)
		r.owner = creator
	case h%100 < 30:
		r.id = rankedRepoID(k)
		o := int64(h>>8) % (50 + k/40)
		ho := mix(uint64(o) ^ 0x8ebc6af09c88c6e3)
		r.org = ident{100000000 + o, nouns[ho&31] + "-" + projects[ho>>5&31] + strconv.FormatInt(o, 10)}
		r.owner = r.org
	default:
		r.id = rankedRepoID(k)
		r.owner = actorIdent(int64(h>>8) % max(10000, k*12/20))
	}
	r.name = r.owner.login + "/" + projects[h>>30&31] + "-" + strconv.FormatInt(r.id, 36)
	return r
}
