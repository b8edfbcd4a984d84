package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/workload/docolap"
)

// The documents read from a dump are the generator's events themselves,
// their fields after _id, the event's id, and survive a trip through a
// .bson file.
func TestReadDumpAndBSONFile(t *testing.T) {
	const n = 300
	g := docolap.NewGenerator(5, n)
	var dump bytes.Buffer
	if _, err := docolap.DumpEvents(context.Background(), g, &dump); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "events.copy")
	if err := os.WriteFile(file, dump.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	docs, jsonBytes, bsonBytes, err := read(file, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != n {
		t.Fatalf("%d documents, want %d", len(docs), n)
	}
	var wantJSON int64
	for i := range int64(n) {
		wantJSON += int64(len(g.AppendEvent(nil, i)))
		raw := docs[i].(bson.Raw)
		if id := raw.Lookup("_id").Int64(); id != g.ID(i) {
			t.Fatalf("document %d: _id %d, want %d", i, id, g.ID(i))
		}
		first, _ := raw.IndexErr(1) // the element after _id
		want := g.AppendEventBSON(nil, i)
		if got := []byte(raw[4+len(raw.Index(0)):]); !bytes.Equal(got, want[4:]) || first.Key() != "id" {
			t.Fatalf("document %d: its fields after _id are not the generator's BSON", i)
		}
	}
	if jsonBytes != wantJSON {
		t.Errorf("JSON bytes %d, want %d", jsonBytes, wantJSON)
	}
	out := filepath.Join(dir, "events.bson")
	if err := writeBSON(out, docs); err != nil {
		t.Fatal(err)
	}
	back, size, err := readBSON(out)
	if err != nil {
		t.Fatal(err)
	}
	if size != bsonBytes || len(back) != n {
		t.Fatalf("read back %d documents, %d bytes; want %d, %d", len(back), size, n, bsonBytes)
	}
	for i := range back {
		if !bytes.Equal(back[i].(bson.Raw), docs[i].(bson.Raw)) {
			t.Fatalf("document %d differs after the .bson file", i)
		}
	}
}

// Bad lines and truncated .bson files are refused, naming where.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, want string }{
		{"no tab", "123 {}\n", "line 1: no tab"},
		{"bad id", "1\t{}\nx\t{}\n", `line 2: id "x"`},
		{"bad escape", "1\t{\"a\":\"\\q\"}\n", `line 1: escape \q`},
		{"not JSON", "1\t{\"a\":\n", "line 1"},
		{"own _id", "1\t{}\n2\t{\"_id\":2}\n", "line 2: the document has an _id of its own"},
	} {
		file := filepath.Join(dir, tc.name)
		if err := os.WriteFile(file, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := read(file, true); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to name %q", tc.name, err, tc.want)
		}
	}
	doc, err := bson.Marshal(bson.D{{Key: "_id", Value: int64(1)}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "cut.bson")
	if err := os.WriteFile(file, append(doc, doc[:len(doc)-2]...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readBSON(file); err == nil || !strings.Contains(err.Error(), "document 2") {
		t.Errorf("truncated .bson: err = %v, want it to name document 2", err)
	}
}
