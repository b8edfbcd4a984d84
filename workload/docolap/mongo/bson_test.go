package mongo_test

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/workload/docolap"
)

// TestBSONIsTheJSON checks that the generator's BSON for an event is, byte
// for byte, what the driver makes of its JSON (as relaxed extended JSON,
// the way engine/mongo loads a JSON column): the collection holds the same
// documents whichever way they were loaded. Every type is among the
// events.
func TestBSONIsTheJSON(t *testing.T) {
	g := docolap.NewGenerator(9, 1000000)
	types := map[string]bool{}
	for i := range int64(3000) {
		js := g.AppendEvent(nil, i)
		var w struct {
			V bson.RawValue `bson:"v"`
		}
		if err := bson.UnmarshalExtJSON(append(append([]byte(`{"v":`), js...), '}'), false, &w); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		got := g.AppendEventBSON(nil, i)
		if !bytes.Equal(got, w.V.Value) {
			t.Fatalf("event %d: BSON differs from the JSON's\n got %v\nwant %v", i, bson.Raw(got), bson.Raw(w.V.Value))
		}
		types[bson.Raw(got).Lookup("type").StringValue()] = true
	}
	if len(types) != 14 {
		t.Errorf("%d types among the events", len(types))
	}
}
