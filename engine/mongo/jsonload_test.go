package mongo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/schema"
)

// jsonRows is a RowSource of rows (id, doc) whose doc is vals[(id-1) %
// len(vals)], or a generated event when vals is empty.
type jsonRows struct {
	i, n int
	vals []any
}

func (r *jsonRows) Next() bool { r.i++; return r.i <= r.n }
func (r *jsonRows) Values() ([]any, error) {
	if len(r.vals) == 0 {
		return []any{r.i, json.RawMessage(event(r.i))}, nil
	}
	return []any{r.i, r.vals[(r.i-1)%len(r.vals)]}, nil
}
func (r *jsonRows) Err() error { return nil }

// event is a 2.5 KB GitHub-like event with nested objects, arrays,
// escapes and numbers of every BSON type a JSON number can become.
func event(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"id":"%d","type":"PushEvent","actor":{"id":%d,"login":"user-%d","gravatar_id":"","url":"https://api.github.com/users/user-%d"},`, 26170203746+i, 41898282+i, i, i)
	fmt.Fprintf(&b, `"repo":{"id":%d,"name":"org/repo-%d","url":"https://api.github.com/repos/org/repo-%d"},"payload":{"push_id":%d,"size":3,"ref":"refs/heads/main","commits":[`, i*7, i%100, i%100, 12058473921+int64(i))
	for c := range 3 {
		if c > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sha":"%040x","author":{"email":"dev%d@example.com","name":"Zo\u00eb \"zed\" M\u00fcller \ud83e\udd16"},"message":"Fix #%d:\n\t* handle \\u escapes\r\nSigned-off-by: Zo\u00eb <dev@example.com>","distinct":%t,"url":"https://api.github.com/repos/org/repo/commits/%08x"}`, i*31+c, c, i, c%2 == 0, i+c)
	}
	fmt.Fprintf(&b, `]},"public":true,"created_at":"2023-01-01T15:04:05Z","org":null,"score":%g,"ratio":12.0,"big":%d,"labels":["bug","good first issue","priority: high","tab\there"],`, float64(i)/7, int64(1)<<40+int64(i))
	b.WriteString(`"reactions":{"+1":3,"-1":0,"laugh":1,"hooray":2,"confused":0,"heart":5,"rocket":1,"eyes":0,"total_count":12},"assignees":[{"login":"alice","id":101,"site_admin":false},{"login":"bob","id":102,"site_admin":true}],"milestone":null}`)
	return b.String()
}

// extJSON is the BSON that bson.UnmarshalExtJSON makes of a JSON value.
func extJSON(t testing.TB, s string) bson.RawValue {
	t.Helper()
	var wrap struct {
		V bson.RawValue `bson:"v"`
	}
	if err := bson.UnmarshalExtJSON([]byte(`{"v":`+s+`}`), false, &wrap); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return wrap.V
}

func jsonTable(name string) *schema.Table {
	return &schema.Table{
		Name:       name,
		Columns:    []schema.Column{{Name: "id", Type: schema.Int}, {Name: "doc", Type: schema.JSON}},
		PrimaryKey: []string{"id"},
	}
}

// TestBulkLoadJSON: a JSON column's values, whatever their Go type, are
// stored as the documents bson.UnmarshalExtJSON makes of them, Extended
// JSON included; a row of invalid JSON fails the load naming its row.
func TestBulkLoadJSON(t *testing.T) {
	ctx := context.Background()
	e := open(t, testdb.Isolated(t, testdb.Mongo(t)))
	conn := connect(t, e)
	cat := conn.Catalog()
	texts := []string{
		event(1), `{"a":{"b":[1,"x",2147483648,1.5,true,null,{}]},"a":2}`, `[1,[],{"k":"\ud83d\ude00\ud83d"}]`, `"s"`, `3000000000`,
		`{"_id":{"$oid":"5f1d7c5e2b3c4d5e6f708192"},"when":{"$date":"2023-01-01T00:00:00Z"},"n":{"$numberLong":"5"}}`,
	}
	var vals []any
	for i, s := range texts {
		// Each Go type a JSON value comes in.
		switch i % 3 {
		case 0:
			vals = append(vals, json.RawMessage(s))
		case 1:
			vals = append(vals, s)
		default:
			vals = append(vals, []byte(s))
		}
	}
	vals = append(vals, nil)
	def := jsonTable("jsondocs")
	if err := cat.CreateTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	const n = 1500 // two insertMany chunks
	if got, err := cat.BulkLoad(ctx, def, &jsonRows{n: n, vals: vals}); err != nil || got != n {
		t.Fatalf("BulkLoad = %d, %v; want %d", got, err, n)
	}
	cur, err := conn.DB().Collection(def.Name).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	var got int
	for cur.Next(ctx) {
		got++
		id := cur.Current.Lookup("_id").Int64()
		doc := cur.Current.Lookup("doc")
		want := bson.RawValue{Type: bson.TypeNull}
		if i := (id - 1) % int64(len(vals)); i < int64(len(texts)) {
			want = extJSON(t, texts[i])
		}
		if doc.Type != want.Type || string(doc.Value) != string(want.Value) {
			t.Errorf("document %d: doc = %v, want %v", id, doc, want)
		}
	}
	if got != n {
		t.Errorf("read %d documents, want %d", got, n)
	}

	bad := jsonTable("jsonbad")
	if err := cat.CreateTable(ctx, bad); err != nil {
		t.Fatal(err)
	}
	_, err = cat.BulkLoad(ctx, bad, &jsonRows{n: 5, vals: []any{`{}`, `[]`, `{"a":`}})
	if err == nil || !strings.Contains(err.Error(), "collection jsonbad field doc row 3: not a JSON document") {
		t.Errorf("BulkLoad of invalid JSON: %v, want an error naming collection jsonbad, field doc, row 3", err)
	}
}

// BenchmarkBulkLoadJSON loads 2.5 KB events into a collection: the
// JSON→BSON conversion, insertMany's encoding and the server's inserts.
// docs/client-cpu-s divides by the CPU time of the test process (making
// the events, converting, encoding, the driver), not the server's.
func BenchmarkBulkLoadJSON(b *testing.B) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, testdb.Isolated(b, testdb.Mongo(b)), engine.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	c, err := eng.Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	cat := c.(*mongo.Conn).Catalog()
	const n = 20000
	size := int64(0)
	for i := 1; i <= n; i++ {
		size += int64(len(event(i)))
	}
	b.SetBytes(size)
	cpu0 := mongo.CPUTime()
	for i := 0; b.Loop(); i++ {
		def := jsonTable(fmt.Sprintf("events%d", i))
		if err := cat.CreateTable(ctx, def); err != nil {
			b.Fatal(err)
		}
		if got, err := cat.BulkLoad(ctx, def, &jsonRows{n: n}); err != nil || got != n {
			b.Fatalf("BulkLoad = %d, %v", got, err)
		}
		b.StopTimer()
		cpu0 -= mongo.CPUTime()
		if err := cat.DropTable(ctx, def.Name); err != nil {
			b.Fatal(err)
		}
		cpu0 += mongo.CPUTime()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
	if cpu := mongo.CPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "docs/client-cpu-s")
	}
}

// TestBulkLoadDocumentColumn: a document column's objects are the
// documents themselves, their fields after _id; MatchShape accepts the
// collection and tells it from one recorded with the column nested; a
// value that is no object, or has an _id of its own, fails the load
// naming its row.
func TestBulkLoadDocumentColumn(t *testing.T) {
	ctx := context.Background()
	e := open(t, testdb.Isolated(t, testdb.Mongo(t)))
	conn := connect(t, e)
	cat := conn.Catalog()
	def := jsonTable("events")
	def.Columns[1].Document = true
	if err := cat.CreateTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	const n = 1200
	if got, err := cat.BulkLoad(ctx, def, &jsonRows{n: n}); err != nil || got != n {
		t.Fatalf("BulkLoad = %d, %v; want %d", got, err, n)
	}
	cur, err := conn.DB().Collection(def.Name).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	read := 0
	for ; cur.Next(ctx); read++ {
		d := cur.Current
		id := read + 1
		elems, _ := d.Elements()
		wantElems, _ := extJSON(t, event(id)).Document().Elements()
		if len(elems) != len(wantElems)+1 || elems[0].Key() != "_id" || elems[0].Value().Int64() != int64(id) {
			t.Fatalf("document %d: %v", id, d)
		}
		for i, w := range wantElems {
			if !bytes.Equal(elems[i+1], w) {
				t.Fatalf("document %d field %d: %v, want %v", id, i+1, elems[i+1], w)
			}
		}
	}
	if read != n {
		t.Errorf("read %d documents, want %d", read, n)
	}
	if n, err := conn.DB().Collection(def.Name).CountDocuments(ctx, bson.D{{Key: "actor.login", Value: "user-7"}}); err != nil || n != 1 {
		t.Errorf("documents of actor.login user-7: %d, %v", n, err)
	}
	if shape, err := cat.MatchShape(ctx, def); err != nil || shape != "" {
		t.Errorf("MatchShape = %q, %v; want a match", shape, err)
	}
	nested := jsonTable("events")
	if shape, err := cat.MatchShape(ctx, nested); err != nil || shape != "recorded fields are (id, doc.*), want (id, doc)" {
		t.Errorf("MatchShape with doc nested = %q, %v", shape, err)
	}
	old := jsonTable("oldevents")
	if err := cat.CreateTable(ctx, old); err != nil {
		t.Fatal(err)
	}
	old.Columns[1].Document = true
	old.Name = "oldevents"
	if shape, err := cat.MatchShape(ctx, old); err != nil || shape != "recorded fields are (id, doc), want (id, doc.*), doc.* being the fields of doc at the top level of each document, not nested under doc: run dbarena cleanup, then prepare" {
		t.Errorf("MatchShape of a collection recorded with doc nested = %q, %v", shape, err)
	}

	for _, c := range []struct {
		vals []any
		msg  string
	}{
		{[]any{`{}`, `[1]`}, "collection bad field doc row 2: a document column holds JSON objects, got a value of type array"},
		{[]any{`{"_id":3}`}, "collection bad field doc row 1: the object has a field _id of its own"},
	} {
		bad := jsonTable("bad")
		bad.Columns[1].Document = true
		if err := cat.CreateTable(ctx, bad); err != nil {
			t.Fatal(err)
		}
		if _, err := cat.BulkLoad(ctx, bad, &jsonRows{n: 3, vals: c.vals}); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("BulkLoad of %v: %v, want %q", c.vals, err, c.msg)
		}
		if err := cat.DropTable(ctx, "bad"); err != nil {
			t.Fatal(err)
		}
	}
}
