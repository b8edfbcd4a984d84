package mongo_test

import (
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	mongoengine "github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/docolap"
	"github.com/dbarena/dbarena/workload/docolap/mongo"
)

// goldenPipelines are the queries' aggregation pipelines, as relaxed
// extended JSON.
var goldenPipelines = map[string]string{
	"A":  `[{"$match":{"type":"IssuesEvent","payload.action":"opened"}},{"$group":{"_id":"$repo.name","n":{"$sum":1}}},{"$sort":{"n":-1,"_id":1}}]`,
	"B":  `[{"$group":{"_id":"$type","n":{"$sum":1}}},{"$sort":{"n":-1,"_id":1}}]`,
	"C":  `[{"$group":{"_id":"$actor.login","n":{"$sum":1}}},{"$sort":{"n":-1,"_id":1}},{"$limit":10}]`,
	"D":  `[{"$match":{"type":"PushEvent","payload.issue.comments":{"$gt":2}}},{"$group":{"_id":"$repo.name","comments":{"$avg":"$payload.issue.comments"}}},{"$sort":{"comments":-1,"_id":1}}]`,
	"D2": `[{"$match":{"type":"IssueCommentEvent","payload.issue.comments":{"$gt":2}}},{"$group":{"_id":"$repo.name","comments":{"$avg":"$payload.issue.comments"}}},{"$sort":{"comments":-1,"_id":1}}]`,
}

func TestPipelines(t *testing.T) {
	for _, q := range docolap.Queries() {
		p, err := mongo.Pipeline(q.Name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := bson.MarshalExtJSON(bson.D{{Key: "p", Value: p}}, false, false)
		if err != nil {
			t.Fatal(err)
		}
		got := string(b[len(`{"p":`) : len(b)-1])
		if got != goldenPipelines[q.Name] {
			t.Errorf("%s:\n got %s\nwant %s", q.Name, got, goldenPipelines[q.Name])
		}
	}
	if _, err := mongo.Pipeline("E"); err == nil {
		t.Error("a pipeline for query E")
	}
}

// TestIndexes checks that the declared indexes become the study's five
// MongoDB indexes, on the fields the pipelines match and group on.
func TestIndexes(t *testing.T) {
	var got []string
	for _, x := range mongoengine.Indexes(docolap.Declared()) {
		b, _ := bson.MarshalExtJSON(x.Keys, false, false)
		got = append(got, string(b))
	}
	want := []string{`{"repo.name":1}`, `{"payload.action":1}`, `{"type":1}`, `{"actor.login":1}`, `{"payload.issue.comments":1}`}
	if len(got) != len(want) {
		t.Fatalf("indexes %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("index %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// TestBound checks that the implementation for MongoDB is bound to the
// registered workload and refuses its bad options alike.
func TestBound(t *testing.T) {
	m, ok := workload.Lookup("docolap")
	if !ok {
		t.Fatal("docolap is not registered")
	}
	w := m.New()
	impl, err := workload.ForFamily(w, mongoengine.Dialect{})
	if err != nil {
		t.Fatal(err)
	}
	if impl.Define().Options != w.Define().Options {
		t.Error("not bound to the registered workload's options")
	}
	if err := w.Define().Options.Parse([]string{"--events", "0"}); err != nil {
		t.Fatal(err)
	}
	errs := impl.Define().Validate()
	if len(errs) != 1 || errs[0].Error() != "--events 0: must be at least 1" {
		t.Errorf("--events 0 on MongoDB: %v", errs)
	}
}

// TestNormalizedRefused checks that --normalized, a relational form, is
// refused on MongoDB when the implementation is picked, before any work:
// an option error naming the flag and its value.
func TestNormalizedRefused(t *testing.T) {
	w := docolap.New()
	if err := w.Define().Options.Parse([]string{"--normalized", "--events", "100"}); err != nil {
		t.Fatal(err)
	}
	if errs := w.Define().Validate(); len(errs) > 0 {
		t.Fatalf("--normalized is valid on SQL engines: %v", errs)
	}
	impl, err := workload.ForFamily(w, mongoengine.Dialect{})
	var oe *workload.OptionError
	if impl != nil || !errors.As(err, &oe) || oe.Flag != "normalized" || oe.Value != "true" {
		t.Fatalf("ForFamily(mongodb) with --normalized = %v, %v; want an option error on --normalized", impl, err)
	}
	if !strings.HasPrefix(err.Error(), "--normalized true: ") {
		t.Errorf("message %q", err)
	}
}
