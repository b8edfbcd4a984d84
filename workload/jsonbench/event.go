package jsonbench

import "github.com/dbarena/dbarena/workload/internal/jsondoc"

// AppendDoc appends event i (0 ≤ i < Docs) as compact JSON in the shape
// of Bluesky's Jetstream firehose: did, time_us, kind, and the kind's
// object: commit {rev, operation, collection, rkey, record, cid} (no
// record or cid for a delete), identity {did, handle, seq, time} or
// account {active, did, seq, time}.
func (g *Generator) AppendDoc(dst []byte, i int64) []byte { return g.appendDoc(dst, i, false) }

// AppendDocBSON appends event i as the BSON document MongoDB stores for
// AppendDoc's JSON (the same members in the same order; integers as
// int32 where they fit, else int64).
func (g *Generator) AppendDocBSON(dst []byte, i int64) []byte { return g.appendDoc(dst, i, true) }

// doc is the event being written.
type doc struct {
	g *Generator
	d draws
	e jsondoc.Enc
	i int64
}

func (g *Generator) appendDoc(dst []byte, i int64, bson bool) []byte {
	v := doc{g: g, d: g.draw(i), i: i}
	v.e.Reset(dst, bson)
	e, ev := &v.e, &v.d.ev
	e.Obj()
	e.Str("did", ev.DID)
	e.Int("time_us", ev.TimeUS)
	e.Str("kind", ev.Kind.String())
	seq := 4000000000 + i*3
	switch ev.Kind {
	case KindCommit:
		v.commit()
	case KindIdentity:
		e.Key("identity")
		e.Obj()
		e.Str("did", ev.DID)
		at := e.BeginStr("handle")
		e.B = append(e.B, ev.DID[8:16]...)
		e.B = append(e.B, ".bsky.social"...)
		e.EndStr(at)
		e.Int("seq", seq)
		v.time("time", ev.TimeUS-int64(v.d.r.Intn(500000)))
		e.End()
	case KindAccount:
		e.Key("account")
		e.Obj()
		e.Bool("active", v.d.r.Intn(10) != 0)
		e.Str("did", ev.DID)
		e.Int("seq", seq)
		v.time("time", ev.TimeUS-int64(v.d.r.Intn(500000)))
		e.End()
	}
	e.End()
	return e.B
}

// time is member k, the time us in ISO 8601 with milliseconds.
func (v *doc) time(k string, us int64) {
	at := v.e.BeginStr(k)
	v.e.B = appendISO(v.e.B, us)
	v.e.EndStr(at)
}

// tid is member k, a TID of time us.
func (v *doc) tid(k string, us int64) {
	at := v.e.BeginStr(k)
	v.e.B = appendTID(v.e.B, us, v.d.r.Next())
	v.e.EndStr(at)
}

// cid is member k, a content id.
func (v *doc) cid(k string) {
	at := v.e.BeginStr(k)
	v.e.B = appendCID(v.e.B, &v.d.r)
	v.e.EndStr(at)
}

// someone is a user of the collection c at this event, by rank.
func (v *doc) someone(c Collection) string {
	return v.g.did(rank(v.d.r.Float(), &collections[c], v.i))
}

// uri is member k, an at:// URI of a record of collection c of a user of
// c, made at about us.
func (v *doc) uri(k string, c Collection, us int64) {
	at := v.e.BeginStr(k)
	v.e.B = append(v.e.B, "at://"...)
	v.e.B = append(v.e.B, v.someone(c)...)
	v.e.B = append(v.e.B, '/')
	v.e.B = append(v.e.B, c.NSID()...)
	v.e.B = append(v.e.B, '/')
	v.e.B = appendTID(v.e.B, us, v.d.r.Next())
	v.e.EndStr(at)
}

// strongRef is member k, a reference {cid, uri} to a record of c.
func (v *doc) strongRef(k string, c Collection, us int64) {
	v.e.Key(k)
	v.e.Obj()
	v.cid("cid")
	v.uri("uri", c, us)
	v.e.End()
}

// earlier is a time before us: up to about a month.
func (v *doc) earlier(us int64) int64 {
	return us - 1000000 - int64(v.d.r.Geometric(3*86400))*1000000
}

func (v *doc) commit() {
	e, ev, r := &v.e, &v.d.ev, &v.d.r
	e.Key("commit")
	e.Obj()
	v.tid("rev", ev.TimeUS)
	e.Str("operation", ev.Operation.String())
	e.Str("collection", ev.Collection.NSID())
	created := ev.TimeUS - int64(r.Intn(2000000))
	if ev.Operation == Create {
		v.tid("rkey", created)
	} else if ev.Collection == Profile || ev.Collection == LabelerService {
		e.Str("rkey", "self")
	} else {
		v.tid("rkey", v.earlier(ev.TimeUS))
	}
	if ev.Operation != Delete {
		e.Key("record")
		e.Obj()
		e.Str("$type", ev.Collection.NSID())
		v.record(created)
		e.End()
		v.cid("cid")
	}
	e.End()
}

// record writes the members of the commit's record after its $type.
func (v *doc) record(created int64) {
	e, ev, r := &v.e, &v.d.ev, &v.d.r
	switch ev.Collection {
	case Post:
		v.time("createdAt", created)
		if r.Intn(5) == 0 {
			e.Key("embed")
			e.Obj()
			e.Str("$type", "app.bsky.embed.images")
			e.Key("images")
			e.Arr()
			for range 1 + r.Intn(4) {
				e.Elem()
				e.Obj()
				e.Str("alt", "")
				e.Key("image")
				e.Obj()
				e.Str("$type", "blob")
				e.Key("ref")
				e.Obj()
				v.cid("$link")
				e.End()
				e.Str("mimeType", "image/jpeg")
				e.Int("size", int64(100000+r.Intn(900000)))
				e.End()
				e.End()
			}
			e.EndArr()
			e.End()
		}
		e.Key("langs")
		e.Arr()
		e.ElemStr(langs[r.Intn(len(langs))])
		e.EndArr()
		if r.Intn(3) == 0 {
			e.Key("reply")
			e.Obj()
			root := v.earlier(created)
			v.strongRef("parent", Post, root+int64(r.Intn(1000000)))
			v.strongRef("root", Post, root)
			e.End()
		}
		at := e.BeginStr("text")
		e.B = jsondoc.AppendWords(e.B, r, &postWords, 1+r.Geometric(14))
		e.EndStr(at)
	case Like, Repost:
		v.time("createdAt", created)
		v.strongRef("subject", Post, v.earlier(created))
	case Follow, Block:
		v.time("createdAt", created)
		e.Str("subject", v.someone(Like))
	case ListItem:
		v.time("createdAt", created)
		v.uri("list", List, v.earlier(created))
		e.Str("subject", v.someone(Like))
	case ListBlock:
		v.time("createdAt", created)
		v.uri("subject", List, v.earlier(created))
	case Profile:
		v.time("createdAt", created)
		at := e.BeginStr("description")
		e.B = jsondoc.AppendWords(e.B, r, &postWords, 1+r.Geometric(10))
		e.EndStr(at)
		at = e.BeginStr("displayName")
		e.B = jsondoc.AppendWords(e.B, r, &postWords, 2)
		e.EndStr(at)
	case List, StarterPack, FeedGenerator:
		v.time("createdAt", created)
		at := e.BeginStr("name")
		e.B = jsondoc.AppendWords(e.B, r, &postWords, 1+r.Intn(4))
		e.EndStr(at)
		if ev.Collection == List {
			e.Str("purpose", "app.bsky.graph.defs#curatelist")
		} else {
			v.uri("list", List, v.earlier(created))
		}
	case ThreadGate, PostGate:
		v.time("createdAt", created)
		v.uri("post", Post, v.earlier(created))
	case LabelerService:
		v.time("createdAt", created)
		e.Key("policies")
		e.Obj()
		e.Key("labelValues")
		e.Arr()
		e.ElemStr("spam")
		e.EndArr()
		e.End()
	}
}

// langs are the posts' languages, English the most.
var langs = [...]string{"en", "en", "en", "en", "en", "en", "en", "en", "en", "en", "ja", "ja", "ja", "pt", "pt", "de", "es", "fr", "ko", "nl"}

// postWords make the posts' texts.
var postWords = [64]string{"the", "a", "to", "and", "of", "I", "is", "in", "it", "you", "that", "this", "for", "on",
	"my", "so", "just", "be", "with", "me", "not", "are", "have", "was", "but", "what", "like", "all", "we", "they",
	"do", "at", "can", "your", "about", "one", "out", "if", "he", "new", "now", "more", "people", "good", "time",
	"love", "bluesky", "here", "today", "lol", "really", "think", "know", "great", "art", "day", "post", "thanks",
	"going", "need", "see", "want", "back", "first"}
