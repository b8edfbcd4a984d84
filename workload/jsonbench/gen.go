package jsonbench

import (
	"math"
	"strconv"
	"time"

	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// Collection is one record collection (NSID) of Bluesky's commits.
type Collection uint8

// The collections, in the order of their share of the events at 1 M.
const (
	Like Collection = iota
	Follow
	Post
	Repost
	Block
	Profile
	ListItem
	ListBlock
	StarterPack
	List
	ThreadGate
	PostGate
	FeedGenerator
	LabelerService
	numCollections
)

// collection is what the generator knows of one collection: its NSID,
// its events and creates among JSONBench's published first million
// events (Q1's and Q2's counts), the share of updates among its other
// operations (the rest are deletes), and its users: a pool of pool
// users at event 1 M that grows as (i/1 M)^grow, from which an event
// draws rank ⌊pool·u^skew⌋ (u uniform), calibrated so that the creates
// of the first million events have Q2's number of distinct users.
type collection struct {
	nsid            string
	events, creates int
	updates         float64
	pool            float64
	grow, skew      float64
}

var collections = [numCollections]collection{
	{"app.bsky.feed.like", 448944, 444523, 0, 167280, 0.753, 1.5},
	{"app.bsky.graph.follow", 360374, 337978, 0, 83710, 0.856, 1.5},
	{"app.bsky.feed.post", 90816, 86812, 0.02, 128559, 0.669, 1.5},
	{"app.bsky.feed.repost", 58540, 56993, 0, 55677, 0.779, 1.5},
	{"app.bsky.graph.block", 14040, 13838, 0, 11456, 0.857, 1.5},
	{"app.bsky.actor.profile", 11762, 5337, 1, 22289724, 0.5, 1},
	{"app.bsky.graph.listitem", 8103, 7568, 0, 1297, 0.817, 1.5},
	{"app.bsky.graph.listblock", 895, 860, 0, 1270, 1.046, 1.5},
	{"app.bsky.graph.starterpack", 405, 104, 0.9, 2604, 0.522, 1.5},
	{"app.bsky.graph.list", 356, 259, 0.6, 2012, 0.817, 1.5},
	{"app.bsky.feed.threadgate", 255, 228, 0.5, 1468, 0.590, 1.5},
	{"app.bsky.feed.postgate", 104, 101, 0.5, 383, 0.598, 1.5},
	{"app.bsky.feed.generator", 74, 10, 0.9, 250, 0.242, 1.5},
	{"app.bsky.labeler.service", 4, 0, 1, 10, 0.5, 1.5},
}

// NSID is the collection's name as commits carry it
// ("app.bsky.feed.like").
func (c Collection) NSID() string {
	if c < numCollections {
		return collections[c].nsid
	}
	return "Collection(" + strconv.Itoa(int(c)) + ")"
}

// Collections lists the collections.
func Collections() []Collection {
	out := make([]Collection, numCollections)
	for i := range out {
		out[i] = Collection(i)
	}
	return out
}

// Share is the collection's share of all events, and CreateShare the
// share of creates among its events, as in JSONBench's first million.
func (c Collection) Share() float64 { return float64(collections[c].events) / perMillion }

// CreateShare is the share of creates among the collection's events.
func (c Collection) CreateShare() float64 {
	return float64(collections[c].creates) / float64(collections[c].events)
}

const perMillion = 1000000

// NoCommitShare is the share of events without a commit (identity and
// account events): 5,328 of JSONBench's first million.
const NoCommitShare = 5328.0 / perMillion

// identityShare is the share of identity events among those without a
// commit (the others are account events).
const identityShare = 0.6

// The capture: from 2024-11-21 16:25:49 UTC, at captureRate events a
// second at 16:00–17:00 (the first million span about 814 s) and at the
// hour-of-day profile hourWeight, relative to hour 16, at other hours.
const (
	CaptureStartUS = 1732206349000000 // 2024-11-21T16:25:49Z
	captureRate    = 1228.0
	startHour      = 16
	startInHour    = 25*60 + 49 // seconds into hour 16
)

// hourWeight is the rate of events at each hour of the day (UTC),
// relative to one another: JSONBench's likes per hour of day over its
// 1,000 M events (twelve days), in units of 10,000.
var hourWeight = [24]float64{2228, 2291, 2250, 2166, 1700, 1440, 1298, 1218, 1168, 1142, 1186, 1329,
	1580, 1848, 2054, 2190, 2355, 2468, 2415, 2436, 2439, 2475, 2481, 2540}

// HourRate is the capture's rate at hour h of the day, events a second.
func HourRate(h int) float64 { return captureRate * hourWeight[h] / hourWeight[startHour] }

var (
	firstHourEvents = float64(3600-startInHour) * HourRate(startHour)
	dayEvents       float64
	collectionCum   [numCollections + 1]int // cumulative events per million, no-commit last
)

func init() {
	for h := range 24 {
		dayEvents += 3600 * HourRate(h)
	}
	n := 0
	for c, x := range collections {
		n += x.events
		collectionCum[c] = n
	}
	collectionCum[numCollections] = perMillion
}

// Kind is an event's kind.
type Kind uint8

// The event kinds.
const (
	KindCommit Kind = iota
	KindIdentity
	KindAccount
)

var kindNames = [...]string{"commit", "identity", "account"}

// String is the kind as events carry it.
func (k Kind) String() string { return kindNames[k] }

// Operation is a commit's operation.
type Operation uint8

// The operations.
const (
	Create Operation = iota
	Update
	Delete
)

var opNames = [...]string{"create", "update", "delete"}

// String is the operation as commits carry it.
func (o Operation) String() string { return opNames[o] }

// Generator makes the events of a data set. It is safe for concurrent
// use: it holds no state beyond its seed and size.
type Generator struct {
	seed uint64
	n    int64
}

// NewGenerator returns the generator of n events under seed.
func NewGenerator(seed uint64, n int64) *Generator { return &Generator{seed: seed, n: n} }

// Docs is the number of events.
func (g *Generator) Docs() int64 { return g.n }

// ID is event i's id (the table's primary key, MongoDB's _id): i.
func (g *Generator) ID(i int64) int64 { return i }

// Event is what the queries read of one event.
type Event struct {
	DID        string
	TimeUS     int64
	Kind       Kind
	Collection Collection // commits only
	Operation  Operation  // commits only
}

// draws are event i's choices, in the order the stream makes them.
type draws struct {
	r      jsondoc.Rng
	ev     Event
	user   int64
	gapUS  int64
	commit bool
}

func (g *Generator) draw(i int64) draws {
	d := draws{r: jsondoc.Stream(g.seed, i)}
	r := &d.r
	u := r.Intn(perMillion)
	c := 0
	for u >= collectionCum[c] {
		c++
	}
	d.ev.TimeUS, d.gapUS = timeOf(i)
	d.ev.TimeUS += int64(r.Intn(int(d.gapUS)))
	if c == int(numCollections) {
		d.ev.Kind = KindAccount
		if r.Float() < identityShare {
			d.ev.Kind = KindIdentity
		}
		d.user = rank(r.Float(), &collections[Like], i)
	} else {
		x := &collections[c]
		d.commit = true
		d.ev.Collection = Collection(c)
		switch v := r.Intn(x.events); {
		case v < x.creates:
			d.ev.Operation = Create
		case r.Float() < x.updates:
			d.ev.Operation = Update
		default:
			d.ev.Operation = Delete
		}
		d.user = rank(r.Float(), x, i)
	}
	d.ev.DID = g.did(d.user)
	return d
}

// Event is event i's fields that the queries read.
func (g *Generator) Event(i int64) Event { return g.draw(i).ev }

// rank is the user an event i of collection x draws with u.
func rank(u float64, x *collection, i int64) int64 {
	pool := max(min(x.pool, 100), x.pool*math.Pow(float64(i+1)/perMillion, x.grow))
	return int64(pool * math.Pow(u, x.skew))
}

// timeOf is event i's time before its jitter, and the gap between events
// at that time (both microseconds): the capture's rate, hour by hour.
func timeOf(i int64) (us, gap int64) {
	x := float64(i)
	rate := HourRate(startHour)
	sec := x / rate
	if x >= firstHourEvents {
		x -= firstHourEvents
		days := math.Floor(x / dayEvents)
		x -= days * dayEvents
		sec = float64(3600-startInHour) + days*86400
		for k := range 24 {
			rate = HourRate((startHour + 1 + k) % 24)
			if e := 3600 * rate; x < e || k == 23 {
				sec += float64(k)*3600 + x/rate
				break
			} else {
				x -= e
			}
		}
	}
	return CaptureStartUS + int64(sec*1e6), max(1, int64(1e6/rate))
}

const base32 = "abcdefghijklmnopqrstuvwxyz234567"

// did is user k's DID: did:plc: and 24 base-32 characters.
func (g *Generator) did(k int64) string {
	var b [32]byte
	copy(b[:], "did:plc:")
	x, y := jsondoc.Mix(g.seed^0x5bd1e995+uint64(k)), jsondoc.Mix((uint64(k)+1)*0x9e3779b97f4a7c15^g.seed)
	for j := 8; j < 32; j++ {
		if j == 20 {
			x = y
		}
		b[j] = base32[x&31]
		x >>= 5
	}
	return string(b[:])
}

const tidChars = "234567abcdefghijklmnopqrstuvwxyz"

// appendTID appends a record key or revision in AT Protocol's TID form:
// 13 sortable base-32 characters of the time (µs) and a clock id.
func appendTID(b []byte, us int64, clock uint64) []byte {
	v := uint64(us)<<10 | clock&1023
	var t [13]byte
	for j := 12; j >= 0; j-- {
		t[j] = tidChars[v&31]
		v >>= 5
	}
	return append(b, t[:]...)
}

// appendCID appends a content id: bafyrei and 52 base-32 characters.
func appendCID(b []byte, r *jsondoc.Rng) []byte {
	b = append(b, "bafyrei"...)
	var x uint64
	for j := 0; j < 52; j++ {
		if j%12 == 0 {
			x = r.Next()
		}
		b = append(b, base32[x&31])
		x >>= 5
	}
	return b
}

// appendISO appends us as "2024-11-21T16:25:49.123Z".
func appendISO(b []byte, us int64) []byte {
	return time.UnixMicro(us).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
}
