package mongo

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/schema"
)

func TestDecimal(t *testing.T) {
	for _, tc := range []struct {
		v     any
		scale int
		want  string
	}{
		{1234.5, 2, "1234.50"},
		{-0.015, 2, "-0.02"},
		{int64(7), 4, "7.0000"},
		{"x", 2, ""},
	} {
		got := decimal(tc.v, tc.scale)
		d, ok := got.(bson.Decimal128)
		if tc.want == "" {
			if ok {
				t.Errorf("decimal(%v) = %v, want it unchanged", tc.v, got)
			}
			continue
		}
		if !ok || d.String() != tc.want {
			t.Errorf("decimal(%v, %d) = %v, want %s", tc.v, tc.scale, got, tc.want)
		}
	}
	// The value × 10^-scale, as a DECIMAL(p, 2) column holds cents.
	if got := decimal(1234.5, 2); got != bson.NewDecimal128(uint64(6176-2)<<49, 123450) {
		t.Errorf("decimal(1234.5, 2) = %v, want 123450 × 10^-2", got)
	}
}

func TestDocument(t *testing.T) {
	var tc jsonTranscoder
	v, err := tc.document(json.RawMessage(`{"a": {"b": [1, "x"]}, "n": 2.5}`))
	if err != nil {
		t.Fatal(err)
	}
	rv := v.(bson.RawValue)
	if rv.Type != bson.TypeEmbeddedDocument || fmt.Sprint(rv.Document().Lookup("a", "b")) != `[{"$numberInt":"1"},"x"]` {
		t.Errorf("document = %v", rv)
	}
	if _, err := tc.document("{nope"); err == nil {
		t.Error("bad JSON accepted")
	}
	if v, err := tc.document(nil); v != nil || err != nil {
		t.Errorf("document(nil) = %v, %v", v, err)
	}
}

func TestFieldsIndexesValidator(t *testing.T) {
	tb := &schema.Table{
		Name:       "t",
		Columns:    []schema.Column{{Name: "id", Type: schema.Int}, {Name: "amt", Type: schema.Decimal, Size: 9, Scale: 2}, {Name: "doc", Type: schema.JSON}},
		PrimaryKey: []string{"id"},
		Indexes: []schema.Index{
			{Name: "t_path", Keys: []schema.Key{schema.Path("doc", "a", "b"), {Column: "id", Desc: true}}, Include: []string{"amt"}},
		},
		Checks: []schema.Check{{Name: "t_amt", Column: "amt", Op: ">=", Value: 0}, {Name: "t_id", Column: "id", Op: "<", Value: 100}},
	}
	if f := fmt.Sprint(Fields(tb)); f != "[_id amt doc]" {
		t.Errorf("Fields = %s", f)
	}
	ix := Indexes(tb)
	if len(ix) != 1 || ix[0].Name != "t_path" || ix[0].Keys.String() != `{"doc.a.b":{"$numberInt":"1"},"_id":{"$numberInt":"-1"}}` {
		t.Errorf("Indexes = %v", ix)
	}
	v := Validator(tb)
	if got := v.String(); got != `{"$and":[{"amt":{"$gte":{"$numberDecimal":"0.00"}}},{"_id":{"$lt":{"$numberInt":"100"}}}]}` {
		t.Errorf("Validator = %s", got)
	}
}

// TestDocumentColumn: a document column's fields are at the top level:
// its paths are indexed from the document's root, and a row's document
// is its other columns followed by the object's fields.
func TestDocumentColumn(t *testing.T) {
	tb := &schema.Table{
		Name:       "e",
		Columns:    []schema.Column{{Name: "id", Type: schema.BigInt}, {Name: "doc", Type: schema.JSON, Document: true}},
		PrimaryKey: []string{"id"},
		Indexes:    []schema.Index{{Name: "e_login", Keys: []schema.Key{schema.Path("doc", "actor", "login")}}},
	}
	if f := fmt.Sprint(Fields(tb)); f != "[_id doc.*]" {
		t.Errorf("Fields = %s", f)
	}
	if ix := Indexes(tb); len(ix) != 1 || ix[0].Keys.String() != `{"actor.login":{"$numberInt":"1"}}` {
		t.Errorf("Indexes = %v", ix)
	}
	obj, _ := bson.Marshal(bson.D{{Key: "id", Value: "7"}, {Key: "actor", Value: bson.D{{Key: "login", Value: "x"}}}})
	d, err := spread(nil, bson.D{{Key: "_id", Value: int64(7)}}, obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil || d.String() != `{"_id": {"$numberLong":"7"},"id": "7","actor": {"login": "x"}}` {
		t.Errorf("spread = %s (%v)", d, err)
	}
	withID, _ := bson.Marshal(bson.D{{Key: "_id", Value: 1}})
	if _, err := spread(nil, bson.D{{Key: "_id", Value: int64(7)}}, withID); err == nil || !strings.Contains(err.Error(), "a field _id of its own") {
		t.Errorf("spread of an object with _id: %v", err)
	}
	var tc jsonTranscoder
	for _, s := range []string{`[1]`, `"s"`} {
		v, err := tc.document(json.RawMessage(s))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := documentObject(v); err == nil || !strings.Contains(err.Error(), "a document column holds JSON objects") {
			t.Errorf("documentObject(%s): %v", s, err)
		}
	}
}
