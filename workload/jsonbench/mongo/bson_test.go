package mongo_test

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/workload/jsonbench"
)

// TestBSONIsTheJSON checks that the generator's BSON for an event is, byte
// for byte, what the driver makes of its JSON (as relaxed extended JSON,
// the way engine/mongo loads a JSON column): the collection holds the same
// documents whichever way they were loaded. Every collection and kind is
// among the events.
func TestBSONIsTheJSON(t *testing.T) {
	g := jsonbench.NewGenerator(9, 1000000)
	seen := map[string]bool{}
	for i := range int64(20000) {
		js := g.AppendDoc(nil, i)
		var w struct {
			V bson.RawValue `bson:"v"`
		}
		if err := bson.UnmarshalExtJSON(append(append([]byte(`{"v":`), js...), '}'), false, &w); err != nil {
			t.Fatalf("event %d: %v\n%s", i, err, js)
		}
		got := g.AppendDocBSON(nil, i)
		if !bytes.Equal(got, w.V.Value) {
			t.Fatalf("event %d: BSON differs from the JSON's\n got %v\nwant %v", i, bson.Raw(got), bson.Raw(w.V.Value))
		}
		d := bson.Raw(got)
		seen[d.Lookup("kind").StringValue()] = true
		if c, ok := d.Lookup("commit", "collection").StringValueOK(); ok {
			seen[c] = true
		}
	}
	if len(seen) != 3+len(jsonbench.Collections()) { // the kinds and every collection
		t.Errorf("%d kinds and collections among the events: %v", len(seen), seen)
	}
}
