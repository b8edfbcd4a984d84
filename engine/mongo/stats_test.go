package mongo

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/engine/internal/statstest"
)

// statusDoc reads a serverStatus document in extended JSON from testdata.
func statusDoc(t *testing.T, name string) bson.Raw {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var doc bson.Raw
	if err := bson.UnmarshalExtJSON(b, true, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// serverstatus-6.0.json is serverStatus of MongoDB 6.0.5, its sections
// the metrics read kept, tickets under wiredTiger.concurrentTransactions;
// serverstatus-7.0.json is the same with the tickets where 7.0 and later
// put them, queues.execution.
func TestDecodeStatus(t *testing.T) {
	counters := map[string]uint64{
		"mongo.opcounters.insert": 944689, "mongo.opcounters.query": 242595, "mongo.opcounters.update": 120236,
		"mongo.opcounters.delete": 37859, "mongo.opcounters.getmore": 296, "mongo.opcounters.command": 187028,
		"mongo.transactions.totalCommitted": 48650, "mongo.transactions.totalAborted": 19122,
	}
	for _, tc := range []struct {
		file        string
		read, write float64
	}{
		{"serverstatus-6.0.json", 128, 128},
		{"serverstatus-7.0.json", 7, 5},
	} {
		t.Run(tc.file, func(t *testing.T) {
			doc := statusDoc(t, tc.file)
			var s statstest.Sink
			if err := decodeStatus(doc, &s); err != nil {
				t.Fatal(err)
			}
			for k, v := range counters {
				if s.Counters[k] != v {
					t.Errorf("%s = %d, want %d", k, s.Counters[k], v)
				}
			}
			if s.Counters["mongo.network.bytesIn"] == 0 || s.Counters["mongo.network.bytesOut"] == 0 {
				t.Errorf("network counters %v", s.Counters)
			}
			wantG := map[string]float64{
				"mongo.connections_current": 4,
				"mongo.cache_mb":            188046596.0 / (1 << 20),
				"mongo.cache_dirty_mb":      7411275.0 / (1 << 20),
				"mongo.tickets_read":        tc.read,
				"mongo.tickets_write":       tc.write,
			}
			if !reflect.DeepEqual(s.Gauges, wantG) {
				t.Errorf("gauges %v\nwant   %v", s.Gauges, wantG)
			}
			if got, want := startedAt(doc), (1796154208037.0-4089194)/1000; got != want {
				t.Errorf("started at %v, want %v", got, want)
			}
		})
	}
}

// A standalone server without transactions, or another storage engine,
// leaves those metrics out; a document without opcounters, or with a
// value of the wrong type, is an error naming the field.
func TestDecodeStatusPartial(t *testing.T) {
	doc := func(d bson.D) bson.Raw {
		b, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ops := bson.D{{Key: "insert", Value: int64(1)}, {Key: "query", Value: int32(2)}, {Key: "update", Value: int64(3)},
		{Key: "delete", Value: int64(4)}, {Key: "getmore", Value: int64(5)}, {Key: "command", Value: int64(6)}}
	net := bson.D{{Key: "bytesIn", Value: int64(10)}, {Key: "bytesOut", Value: int64(20)}}
	var s statstest.Sink
	if err := decodeStatus(doc(bson.D{{Key: "opcounters", Value: ops}, {Key: "network", Value: net},
		{Key: "connections", Value: bson.D{{Key: "current", Value: int32(3)}}}}), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Counters) != 8 || s.Counters["mongo.opcounters.query"] != 2 || !reflect.DeepEqual(s.Gauges, map[string]float64{"mongo.connections_current": 3}) {
		t.Errorf("counters %v gauges %v", s.Counters, s.Gauges)
	}
	for _, tc := range []struct {
		d    bson.D
		want string
	}{
		{bson.D{{Key: "network", Value: net}}, "no opcounters.insert"},
		{bson.D{{Key: "opcounters", Value: ops}, {Key: "network", Value: bson.D{{Key: "bytesIn", Value: "many"}, {Key: "bytesOut", Value: int64(1)}}}}, "network.bytesIn is"},
		{bson.D{{Key: "opcounters", Value: ops}, {Key: "network", Value: net}, {Key: "connections", Value: bson.D{{Key: "current", Value: "x"}}}}, "[connections current]"},
	} {
		if err := decodeStatus(doc(tc.d), &statstest.Sink{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one with %q", err, tc.want)
		}
	}
}

// A failing serverStatus is the sample's error.
func TestStatusSourceError(t *testing.T) {
	boom := errors.New("boom")
	src := &statusSource{run: func(context.Context) (bson.Raw, error) { return nil, boom }}
	if err := src.Sample(context.Background(), &statstest.Sink{}); !errors.Is(err, boom) {
		t.Errorf("error %v", err)
	}
}
