package mongo

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
)

// loadChunk is the number of documents per insertMany of a bulk load: well
// under the server's 100,000 writes and 48 MB per batch.
const loadChunk = 1000

// catalog keeps dbarena's records in the collection engine.MetaTable, one
// document per collection: {_id: name, workload, state, created_at,
// identity (the collection's UUID), options (those that define the
// data), columns}. The columns are the initial data's fields, which a collection
// does not declare, so that a later run can tell a collection of another
// shape.
type catalog struct{ c *Conn }

var _ engine.Catalog = catalog{}

func (k catalog) meta() *mongo.Collection { return k.c.db.Collection(engine.MetaTable) }

// TableExists implements engine.Catalog.
func (k catalog) TableExists(ctx context.Context, name string) (bool, error) {
	names, err := k.c.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: name}})
	if err != nil {
		return false, fmt.Errorf("looking up collection %s: %w", name, err)
	}
	return len(names) > 0, nil
}

// Columns implements engine.Catalog: the fields recorded by CreateTable.
func (k catalog) Columns(ctx context.Context, name string) ([]string, error) {
	var doc struct {
		Columns []string `bson:"columns"`
	}
	err := k.meta().FindOne(ctx, bson.D{{Key: "_id", Value: name}}).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	return doc.Columns, err
}

// CreateTable implements engine.Catalog: it creates the collection and
// records its fields (recordedColumns).
func (k catalog) CreateTable(ctx context.Context, t *schema.Table) error {
	if err := k.c.db.CreateCollection(ctx, t.Name); err != nil {
		return err
	}
	_, err := k.meta().UpdateOne(ctx, bson.D{{Key: "_id", Value: t.Name}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "columns", Value: recordedColumns(t)}}}}, options.UpdateOne().SetUpsert(true))
	return err
}

// recordedColumns are the column names CreateTable records, a document
// column's written name.* (its fields at the top level), so that a
// collection whose documents nest that column under its name is told
// from one whose documents are the column's objects.
func recordedColumns(t *schema.Table) []string {
	out := t.ColumnNames()
	for i, c := range t.Columns {
		if c.Document {
			out[i] += ".*"
		}
	}
	return out
}

// BulkLoad implements engine.Catalog: one unordered insertMany per
// loadChunk documents, each row a document whose fields are the columns.
// A one-column primary key is the document's _id (see Fields), a JSON
// column's value (json.RawMessage, []byte or a string holding JSON) is
// parsed into a nested document (invalid JSON fails the load with an
// error naming the collection, field and row), or, for the document
// column (schema.Column.Document), into the object whose fields follow
// the other columns' at the top level (bson.Raw passes as it is), and a
// Decimal column's number becomes a Decimal128 rounded to the column's
// scale.
func (k catalog) BulkLoad(ctx context.Context, t *schema.Table, src engine.RowSource) (int64, error) {
	table, columns, kinds := t.Name, Fields(t), t.Columns
	coll := k.c.db.Collection(table)
	opts := options.InsertMany().SetOrdered(false).SetBypassDocumentValidation(true)
	docs := make([]any, 0, loadChunk)
	var n int64
	var tc jsonTranscoder
	var slab []byte // the document column's documents (spread)
	flush := func() error {
		if len(docs) == 0 {
			return nil
		}
		if _, err := coll.InsertMany(ctx, docs, opts); err != nil {
			return err
		}
		n += int64(len(docs))
		docs = docs[:0]
		return nil
	}
	for src.Next() {
		vals, err := src.Values()
		if err != nil {
			return n, err
		}
		if len(vals) != len(columns) {
			return n, fmt.Errorf("collection %s: row has %d values for %d fields", table, len(vals), len(columns))
		}
		row := n + int64(len(docs)) + 1 // counted from 1, as the source gave it
		doc := make(bson.D, 0, len(columns))
		var object bson.Raw // the document column's
		var objectCol string
		for i, col := range columns {
			v := value(vals[i])
			switch kinds[i].Type {
			case schema.JSON:
				if v, err = tc.document(v); err != nil {
					return n, fmt.Errorf("collection %s field %s row %d: %w", table, col, row, err)
				}
			case schema.Decimal:
				v = decimal(v, kinds[i].Scale)
			}
			if kinds[i].Document {
				if object, err = documentObject(v); err != nil {
					return n, fmt.Errorf("collection %s field %s row %d: %w", table, kinds[i].Name, row, err)
				}
				objectCol = kinds[i].Name
				continue
			}
			doc = append(doc, bson.E{Key: col, Value: v})
		}
		if object == nil {
			docs = append(docs, doc)
		} else {
			// The documents wait for their insertMany: each is cut from
			// a slab of its own chunk's.
			if cap(slab)-len(slab) < len(object)+64 {
				slab = make([]byte, 0, max(1<<20, 2*len(object)))
			}
			d, err := spread(slab[len(slab):], doc, object)
			if err != nil {
				return n, fmt.Errorf("collection %s field %s row %d: %w", table, objectCol, row, err)
			}
			if len(d) <= cap(slab)-len(slab) { // written in place
				slab = slab[:len(slab)+len(d)]
			}
			docs = append(docs, d)
		}
		if len(docs) == loadChunk {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := src.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// documentObject is the document column's value v, as document parsed
// it or as the row gave it (bson.Raw, bson.D): an object.
func documentObject(v any) (bson.Raw, error) {
	switch x := v.(type) {
	case bson.Raw:
		return x, nil
	case bson.RawValue:
		if x.Type == bson.TypeEmbeddedDocument {
			return bson.Raw(x.Value), nil
		}
		return nil, fmt.Errorf("a document column holds JSON objects, got a value of type %s", x.Type)
	case nil:
		return nil, errors.New("a document column holds JSON objects, got null")
	}
	b, err := bson.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("a document column holds JSON objects: %w", err)
	}
	return b, nil
}

// spread appends to dst the document of fields followed by object's own
// fields, at the top level, and returns that document (capped at its
// length); a field object has too (the _id of the key) is refused.
func spread(dst []byte, fields bson.D, object bson.Raw) (bson.Raw, error) {
	if len(object) < 5 {
		return nil, errors.New("not a BSON document")
	}
	for _, f := range fields {
		if _, err := object.LookupErr(f.Key); err == nil {
			return nil, fmt.Errorf("the object has a field %s of its own, which the collection keeps for its column", f.Key)
		}
	}
	start := len(dst)
	out := append(dst, 0, 0, 0, 0)
	for _, f := range fields {
		t, v, err := bson.MarshalValue(f.Value)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Key, err)
		}
		out = append(append(append(append(out, byte(t)), f.Key...), 0), v...)
	}
	out = append(out, object[4:]...) // the object's elements and its closing 0
	binary.LittleEndian.PutUint32(out[start:], uint32(len(out)-start))
	return out[start:len(out):len(out)], nil
}

// value maps a row value to its BSON counterpart: integers become int64
// whatever their Go width, so that every document of a collection stores a
// field with one BSON type.
func value(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case time.Time:
		return bson.NewDateTimeFromTime(x)
	}
	return v
}

// document parses a JSON value into BSON (a nested document, an array,
// or a scalar); nil stays nil and other Go values pass unchanged. Plain
// JSON goes through the transcoder; a valid value it leaves to Extended
// JSON (one with a '$' key) goes through bson.UnmarshalExtJSON, which
// reads {"$oid": …} and the like as typed values.
func (d *jsonTranscoder) document(v any) (any, error) {
	var data []byte
	switch x := v.(type) {
	case json.RawMessage:
		data = x
	case []byte:
		data = x
	case string:
		data = []byte(x)
	default:
		return v, nil
	}
	t, b, err := d.transcode(data)
	switch {
	case err == nil:
		return bson.RawValue{Type: t, Value: slices.Clone(b)}, nil
	case !errors.Is(err, errExtJSON):
		return nil, fmt.Errorf("not a JSON document: %w", err)
	}
	var wrap struct {
		V bson.RawValue `bson:"v"`
	}
	// Wrapping lets the value be any JSON, not only an object.
	w := make([]byte, 0, len(data)+6)
	w = append(append(append(w, `{"v":`...), data...), '}')
	if err := bson.UnmarshalExtJSON(w, false, &wrap); err != nil {
		return nil, fmt.Errorf("not a JSON document: %w", err)
	}
	return wrap.V, nil
}

// decimal turns a number loaded into a Decimal column into the Decimal128
// of its value rounded to scale decimal places (the value × 10^-scale,
// as DECIMAL(p, scale) holds it); other values pass unchanged.
func decimal(v any, scale int) any {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	default:
		return v
	}
	h := uint64(6176-scale) << 49 // the exponent's bias is 6176
	if f < 0 {
		h |= 1 << 63
		f = -f
	}
	return bson.NewDecimal128(h, uint64(math.Round(f*math.Pow10(scale))))
}

// Validator is the collection validator of a declared table's checks
// ({balance: {$gte: 0}}), nil when it has none.
func Validator(t *schema.Table) bson.D {
	ops := map[string]string{">=": "$gte", ">": "$gt", "<=": "$lte", "<": "$lt", "<>": "$ne"}
	var conds []bson.D
	for _, ck := range t.Checks {
		f := field(t, schema.Col(ck.Column))
		v := ck.Value
		if c := t.Column(ck.Column); c != nil && c.Type == schema.Decimal {
			v = decimal(value(v), c.Scale)
		}
		conds = append(conds, bson.D{{Key: f, Value: bson.D{{Key: ops[ck.Op], Value: v}}}})
	}
	switch len(conds) {
	case 0:
		return nil
	case 1:
		return conds[0]
	}
	return bson.D{{Key: "$and", Value: conds}}
}

// Fields are the document fields of a declared table's columns: the
// column names, except a one-column primary key, which is _id, and the
// document column (schema.Column.Document), whose fields are at the top
// level: written name.*.
func Fields(t *schema.Table) []string {
	out := recordedColumns(t)
	if len(t.PrimaryKey) == 1 {
		for i, c := range out {
			if c == t.PrimaryKey[0] {
				out[i] = "_id"
			}
		}
	}
	return out
}

// field is the document field of key k of t: _id for a one-column
// primary key, col.a.b for a JSON path, a.b for a path in the document
// column.
func field(t *schema.Table, k schema.Key) string {
	if len(t.PrimaryKey) == 1 && k.Column == t.PrimaryKey[0] {
		return "_id"
	}
	if len(k.Path) > 0 {
		if c := t.Column(k.Column); c != nil && c.Document {
			return k.PathName()
		}
		return k.Column + "." + k.PathName()
	}
	return k.Column
}

// IndexSpec is one index of a collection as MongoDB builds it.
type IndexSpec struct {
	Name   string
	Keys   bson.D // field: 1 (ascending) or -1 (descending)
	Unique bool
}

// Indexes renders a declared table's indexes: a primary key of several
// columns becomes a unique index named <table>_pkey (a one-column key is
// _id, indexed already); secondary indexes keep their names, keys (a
// JSON path as a dotted field, descending keys as -1) and uniqueness.
// Included columns have no meaning here: MongoDB indexes hold their keys
// only, and a query reading other fields fetches the document.
func Indexes(t *schema.Table) []IndexSpec {
	var out []IndexSpec
	if len(t.PrimaryKey) > 1 {
		keys := bson.D{}
		for _, c := range t.PrimaryKey {
			keys = append(keys, bson.E{Key: c, Value: 1})
		}
		out = append(out, IndexSpec{Name: t.Name + "_pkey", Keys: keys, Unique: true})
	}
	for _, x := range t.Indexes {
		keys := bson.D{}
		for _, k := range x.Keys {
			dir := 1
			if k.Desc {
				dir = -1
			}
			keys = append(keys, bson.E{Key: field(t, k), Value: dir})
		}
		out = append(out, IndexSpec{Name: x.Name, Keys: keys, Unique: x.Unique})
	}
	return out
}

// AddForeignKeys implements engine.Catalog: MongoDB has no foreign keys.
func (k catalog) AddForeignKeys(context.Context, *schema.Table) error { return nil }

// FinishTable implements engine.Catalog: it gives the collection the
// validator of t's checks (see Validator) and builds t's indexes (see
// Indexes).
func (k catalog) FinishTable(ctx context.Context, t *schema.Table) error {
	if v := Validator(t); v != nil {
		err := k.c.db.RunCommand(ctx, bson.D{
			{Key: "collMod", Value: t.Name},
			{Key: "validator", Value: v},
			{Key: "validationLevel", Value: "strict"},
			{Key: "validationAction", Value: "error"},
		}).Err()
		if err != nil {
			return fmt.Errorf("validator: %w", err)
		}
	}
	var models []mongo.IndexModel
	for _, x := range Indexes(t) {
		o := options.Index().SetName(x.Name)
		if x.Unique {
			o.SetUnique(true)
		}
		models = append(models, mongo.IndexModel{Keys: x.Keys, Options: o})
	}
	if len(models) == 0 {
		return nil
	}
	if _, err := k.c.db.Collection(t.Name).Indexes().CreateMany(ctx, models); err != nil {
		return fmt.Errorf("building indexes: %w", err)
	}
	return nil
}

// Identity implements engine.Catalog: the collection's UUID
// (listCollections' info.uuid), which a collection of the same name
// created later never has.
func (k catalog) Identity(ctx context.Context, name string) (string, error) {
	specs, err := k.c.db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: name}})
	if err != nil {
		return "", fmt.Errorf("identifying collection %s: %w", name, err)
	}
	if len(specs) == 0 || specs[0].UUID == nil {
		return "", nil
	}
	return hex.EncodeToString(specs[0].UUID.Data), nil
}

// MatchShape implements engine.Catalog. A collection declares no
// columns: the fields recorded when it was created must be t's, and the
// fields of one of its documents (any, if it has one) must be among t's
// with values of the BSON types t's columns load as (null always).
func (k catalog) MatchShape(ctx context.Context, t *schema.Table) (string, error) {
	recorded, err := k.Columns(ctx, t.Name)
	if err != nil {
		return "", err
	}
	want := recordedColumns(t)
	if recorded != nil && !slices.Equal(recorded, want) {
		msg := fmt.Sprintf("recorded fields are (%s), want (%s)", strings.Join(recorded, ", "), strings.Join(want, ", "))
		for _, c := range t.Columns {
			if c.Document {
				msg += fmt.Sprintf(", %s.* being the fields of %s at the top level of each document, not nested under %s: run dbarena cleanup, then prepare", c.Name, c.Name, c.Name)
			}
		}
		return msg, nil
	}
	var doc bson.Raw
	err = k.c.db.Collection(t.Name).FindOne(ctx, bson.D{}).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading a document of %s: %w", t.Name, err)
	}
	elems, err := doc.Elements()
	if err != nil {
		return "", err
	}
	fields := Fields(t)
	document := slices.ContainsFunc(t.Columns, func(c schema.Column) bool { return c.Document })
	var got []string
	ok := true
	for _, e := range elems {
		typ := e.Value().Type
		got = append(got, e.Key()+" "+typ.String())
		i := slices.Index(fields, e.Key())
		switch {
		case i >= 0:
			ok = ok && fits(t.Columns[i], fields[i], typ)
		case e.Key() == "_id":
			// The server's own _id of a table whose key is not one column.
			ok = ok && typ == bson.TypeObjectID
		case document:
			// One of the document column's fields.
		default:
			ok = false
		}
	}
	if ok {
		return "", nil
	}
	return fmt.Sprintf("a document has the fields (%s), want some of (%s)", strings.Join(got, ", "), strings.Join(fields, ", ")), nil
}

// fits reports whether a field of BSON type typ can hold column c's
// values as BulkLoad and the workloads write them.
func fits(c schema.Column, field string, typ bson.Type) bool {
	if typ == bson.TypeNull {
		return true
	}
	switch c.Type {
	case schema.Int, schema.BigInt, schema.Serial, schema.SmallInt:
		// A serial _id the server assigns is an ObjectId (--auto-inc).
		return typ == bson.TypeInt32 || typ == bson.TypeInt64 || (c.Type == schema.Serial && field == "_id" && typ == bson.TypeObjectID)
	case schema.Decimal, schema.Float:
		return typ == bson.TypeDecimal128 || typ == bson.TypeDouble || typ == bson.TypeInt32 || typ == bson.TypeInt64
	case schema.Char, schema.Varchar, schema.Text:
		return typ == bson.TypeString
	case schema.Timestamp, schema.Date:
		return typ == bson.TypeDateTime
	case schema.Bool:
		return typ == bson.TypeBoolean
	case schema.Bytes:
		return typ == bson.TypeBinary
	}
	return true // JSON: any value
}

// DropTable implements engine.Catalog.
func (k catalog) DropTable(ctx context.Context, name string) error {
	return k.c.db.Collection(name).Drop(ctx)
}

type metaDoc struct {
	Table    string            `bson:"_id"`
	Workload string            `bson:"workload"`
	State    string            `bson:"state"`
	Created  time.Time         `bson:"created_at"`
	Identity string            `bson:"identity,omitempty"`
	Options  map[string]string `bson:"options,omitempty"`
	Preparer string            `bson:"prepared_by,omitempty"`
}

// Meta implements engine.Catalog.
func (k catalog) Meta(ctx context.Context, name string) (engine.MetaRecord, bool, error) {
	var d metaDoc
	err := k.meta().FindOne(ctx, bson.D{{Key: "_id", Value: name}, {Key: "state", Value: bson.D{{Key: "$exists", Value: true}}}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return engine.MetaRecord{Table: name}, false, nil
	}
	if err != nil {
		return engine.MetaRecord{Table: name}, false, err
	}
	return engine.MetaRecord{Table: d.Table, Workload: d.Workload, State: d.State, Created: d.Created, Identity: d.Identity, Options: d.Options, Preparer: d.Preparer}, true, nil
}

// SetMeta implements engine.Catalog.
func (k catalog) SetMeta(ctx context.Context, rec engine.MetaRecord) error {
	_, err := k.meta().UpdateOne(ctx, bson.D{{Key: "_id", Value: rec.Table}},
		bson.D{{Key: "$set", Value: metaSet(rec)}}, options.UpdateOne().SetUpsert(true))
	return err
}

// AddMeta implements engine.Catalog: an upsert of the document without
// a state (one holding only the columns CreateTable recorded, or none),
// which the unique _id (the table's name) refuses when a record is there.
func (k catalog) AddMeta(ctx context.Context, rec engine.MetaRecord) (bool, error) {
	_, err := k.meta().UpdateOne(ctx, bson.D{{Key: "_id", Value: rec.Table}, {Key: "state", Value: bson.D{{Key: "$exists", Value: false}}}},
		bson.D{{Key: "$set", Value: metaSet(rec)}}, options.UpdateOne().SetUpsert(true))
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	return err == nil, err
}

// metaSet is rec's fields in its document.
func metaSet(rec engine.MetaRecord) bson.D {
	return bson.D{
		{Key: "workload", Value: rec.Workload},
		{Key: "state", Value: rec.State},
		{Key: "created_at", Value: rec.Created.UTC()},
		{Key: "identity", Value: rec.Identity},
		{Key: "options", Value: rec.Options},
		{Key: "prepared_by", Value: rec.Preparer},
	}
}

// DeleteMeta implements engine.Catalog.
func (k catalog) DeleteMeta(ctx context.Context, name string) error {
	_, err := k.meta().DeleteOne(ctx, bson.D{{Key: "_id", Value: name}})
	return err
}

// DropMetaIfEmpty implements engine.Catalog.
func (k catalog) DropMetaIfEmpty(ctx context.Context) error {
	n, err := k.meta().CountDocuments(ctx, bson.D{})
	if err != nil || n > 0 {
		return err
	}
	return k.meta().Drop(ctx)
}

var _ engine.TableSizer = catalog{}

// TableSizes implements engine.TableSizer from $collStats' storageStats:
// storageSize (the collection's WiredTiger file: compressed blocks, free
// ones kept for reuse included) and totalIndexSize (every index, _id's
// included). It asks for a checkpoint first (the fsync command), so that
// documents and index entries still only in the cache are on disk and
// counted; a user who may not run fsync gets the figures as they are.
func (k catalog) TableSizes(ctx context.Context, names []string) ([]engine.TableSize, error) {
	_ = k.c.db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "fsync", Value: 1}}).Err()
	out := make([]engine.TableSize, 0, len(names))
	for _, name := range names {
		cur, err := k.c.db.Collection(name).Aggregate(ctx, mongo.Pipeline{
			{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{}}}}},
		})
		if err != nil {
			return out, fmt.Errorf("the size of collection %s: %w", name, err)
		}
		var stats []struct {
			Storage struct {
				StorageSize    int64 `bson:"storageSize"`
				TotalIndexSize int64 `bson:"totalIndexSize"`
			} `bson:"storageStats"`
		}
		if err := cur.All(ctx, &stats); err != nil {
			return out, fmt.Errorf("the size of collection %s: %w", name, err)
		}
		if len(stats) == 0 {
			return out, fmt.Errorf("the size of collection %s: no such collection", name)
		}
		s := stats[0].Storage
		out = append(out, engine.TableSize{Table: name, Data: s.StorageSize, Indexes: s.TotalIndexSize, Total: s.StorageSize + s.TotalIndexSize})
	}
	return out, nil
}

// SizeNote implements engine.TableSizer.
func (catalog) SizeNote() string {
	return "WiredTiger's sizes are its files' sizes: compressed blocks, free ones kept for reuse included"
}
