package mongo_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	driver "go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/schema"
)

func open(t *testing.T, tg engine.Target) *mongo.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), tg, engine.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("open %s: %v", tg, err)
	}
	t.Cleanup(func() { e.Close() })
	return e.(*mongo.Engine)
}

func connect(t *testing.T, e engine.Engine) *mongo.Conn {
	t.Helper()
	c, err := e.Connect(context.Background())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := engine.SQL(c); !errors.Is(err, engine.ErrNotSQL) {
		t.Errorf("engine.SQL(mongo conn) = %v, want ErrNotSQL", err)
	}
	return c.(*mongo.Conn)
}

func target(t *testing.T, raw string) engine.Target {
	t.Helper()
	tg, err := engine.ParseTarget(raw, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestOpenAndServerInfo(t *testing.T) {
	tg := testdb.Isolated(t, testdb.Mongo(t))
	// The study varied write concern, read concern and read preference:
	// set through the URL, they are reported as settings.
	u := *tg.URL
	q := u.Query()
	q.Set("w", "majority")
	q.Set("readConcernLevel", "majority")
	q.Set("readPreference", "primaryPreferred")
	u.RawQuery = q.Encode()
	tg.URL = &u
	e := open(t, tg)
	if e.Name() != "mongodb" || e.Dialect().Name() != "mongodb" {
		t.Errorf("Name() = %q, Dialect().Name() = %q, want mongodb", e.Name(), e.Dialect().Name())
	}
	if _, ok := e.Dialect().(engine.SQLDialect); ok {
		t.Error("the MongoDB dialect claims to be an SQL dialect")
	}
	c := connect(t, e)
	if err := c.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	info, err := e.ServerInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.Version, "MongoDB 6.") {
		t.Errorf("Version = %q, want MongoDB 6.x", info.Version)
	}
	want := map[string]string{
		"client.writeConcern":       "w=majority",
		"client.readConcern":        "majority",
		"client.readPreference":     "primaryPreferred",
		"status.repl.setName":       "rs0",
		"status.storageEngine.name": "wiredTiger",
	}
	for k, v := range want {
		if got := info.Settings[k]; got != v {
			t.Errorf("Settings[%q] = %q, want %q", k, got, v)
		}
	}
	// A reply's cluster time and operation time are the moment's, not a
	// setting: two result files would always differ in them.
	for k := range info.Settings {
		if strings.Contains(k, "$clusterTime") || strings.HasSuffix(k, "operationTime") {
			t.Errorf("setting %q is the reply's time, not the server's setting", k)
		}
	}
	if info.Settings["param.transactionLifetimeLimitSeconds"] == "" {
		t.Error("getParameter's transactionLifetimeLimitSeconds is missing from the settings")
	}
	if info.Settings["cmdline.replication.replSet"] != "rs0" {
		t.Errorf("cmdline.replication.replSet = %q, want rs0", info.Settings["cmdline.replication.replSet"])
	}
	for k, v := range info.Settings {
		if strings.Contains(v, tg.Password.Reveal()) && tg.Password.IsSet() {
			t.Errorf("setting %s reveals the password", k)
		}
	}
}

// rows is a RowSource of n rows (id, k, s) with k = id % 7.
type rows struct{ i, n int }

func (r *rows) Next() bool { r.i++; return r.i <= r.n }
func (r *rows) Values() ([]any, error) {
	return []any{r.i, int64(r.i % 7), fmt.Sprintf("row %d", r.i)}, nil
}
func (r *rows) Err() error { return nil }

func TestCatalog(t *testing.T) {
	ctx := context.Background()
	e := open(t, testdb.Isolated(t, testdb.Mongo(t)))
	c := connect(t, e)
	cat := c.Catalog()
	def := &schema.Table{
		Name:       "things",
		Columns:    []schema.Column{{Name: "id", Type: schema.Int}, {Name: "k", Type: schema.BigInt}, {Name: "s", Type: schema.Text}},
		PrimaryKey: []string{"id"},
		Indexes: []schema.Index{
			{Name: "k_1", Keys: []schema.Key{schema.Col("k")}},
			{Name: "k_s", Keys: []schema.Key{schema.Col("k"), schema.Col("s")}, Unique: true},
		},
	}

	if ok, err := cat.TableExists(ctx, def.Name); err != nil || ok {
		t.Fatalf("TableExists before create = %v, %v", ok, err)
	}
	if _, ok, err := cat.Meta(ctx, def.Name); err != nil || ok {
		t.Fatalf("Meta before create = %v, %v", ok, err)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := cat.SetMeta(ctx, engine.MetaRecord{Table: def.Name, Workload: "w", State: "loading", Created: created}); err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	// 2,500 rows: three insertMany chunks, the last one partial.
	n, err := cat.BulkLoad(ctx, def, &rows{n: 2500})
	if err != nil || n != 2500 {
		t.Fatalf("BulkLoad = %d, %v; want 2500", n, err)
	}
	if err := cat.FinishTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	if err := cat.SetMeta(ctx, engine.MetaRecord{Table: def.Name, Workload: "w", State: "ready", Created: created}); err != nil {
		t.Fatal(err)
	}

	if ok, err := cat.TableExists(ctx, def.Name); err != nil || !ok {
		t.Fatalf("TableExists after create = %v, %v", ok, err)
	}
	cols, err := cat.Columns(ctx, def.Name)
	if err != nil || strings.Join(cols, ",") != "id,k,s" {
		t.Errorf("Columns = %v, %v; want [id k s]", cols, err)
	}
	rec, ok, err := cat.Meta(ctx, def.Name)
	if err != nil || !ok || rec.State != "ready" || rec.Workload != "w" || !rec.Created.Equal(created) {
		t.Errorf("Meta = %+v, %v, %v", rec, ok, err)
	}
	coll := c.DB().Collection(def.Name)
	var doc bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: int64(12)}}).Decode(&doc); err != nil {
		t.Fatalf("document 12: %v", err)
	}
	if doc["k"] != int64(5) || doc["s"] != "row 12" {
		t.Errorf("document 12 = %v", doc)
	}
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range specs {
		names[s.Name] = true
		if s.Name == "k_s" && (s.Unique == nil || !*s.Unique) {
			t.Error("index k_s is not unique")
		}
	}
	if !names["k_1"] || !names["k_s"] {
		t.Errorf("indexes = %v, want k_1 and k_s", names)
	}

	if err := cat.DropTable(ctx, def.Name); err != nil {
		t.Fatal(err)
	}
	if err := cat.DropMetaIfEmpty(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := cat.TableExists(ctx, engine.MetaTable); !ok {
		t.Error("DropMetaIfEmpty dropped a meta collection that still records a table")
	}
	if err := cat.DeleteMeta(ctx, def.Name); err != nil {
		t.Fatal(err)
	}
	if err := cat.DropMetaIfEmpty(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := cat.TableExists(ctx, engine.MetaTable); ok {
		t.Error("the empty meta collection is still there")
	}
}

func TestClassify(t *testing.T) {
	ctx := context.Background()
	e := open(t, testdb.Isolated(t, testdb.Mongo(t)))
	d := e.Dialect()
	c1, c2 := connect(t, e), connect(t, e)
	coll := c1.DB().Collection("accounts")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "balance", Value: 100}}); err != nil {
		t.Fatal(err)
	}

	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	if got := d.Classify(err); got != engine.ClassUniqueViolation {
		t.Errorf("duplicate _id: Classify = %v (%v), want unique_violation", got, err)
	}

	// Two transactions writing the same document: the second writer meets
	// a write conflict, labelled TransientTransactionError.
	inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: 1}}}}
	one := bson.D{{Key: "_id", Value: 1}}
	if err := c1.Session().StartTransaction(); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(c1.Ctx(ctx), one, inc); err != nil {
		t.Fatal(err)
	}
	if err := c2.Session().StartTransaction(); err != nil {
		t.Fatal(err)
	}
	_, err = c2.DB().Collection("accounts").UpdateOne(c2.Ctx(ctx), one, inc)
	if got := d.Classify(err); got != engine.ClassSerialization {
		t.Errorf("write conflict: Classify = %v (%v), want serialization", got, err)
	}
	c2.Abort(ctx)
	if err := c1.Commit(ctx); err != nil {
		t.Fatalf("first writer's commit: %v", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = c1.Ping(cctx)
	if got := d.Classify(err); got != engine.ClassCanceled {
		t.Errorf("canceled: Classify = %v (%v), want canceled", got, err)
	}
	if got := d.Classify(errors.New("something else")); got != engine.ClassOther {
		t.Errorf("plain error: Classify = %v, want other", got)
	}
}

// TestSessionsPerConn checks that workers' connections are independent
// sessions: transactions on many at once commit, each its own.
func TestSessionsPerConn(t *testing.T) {
	ctx := context.Background()
	e := open(t, testdb.Isolated(t, testdb.Mongo(t)))
	// A transaction that creates a collection conflicts with every other
	// one doing so: the collection exists first, as after prepare.
	if err := connect(t, e).DB().CreateCollection(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		c := connect(t, e)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Session().StartTransaction(); err != nil {
				errs[i] = err
				return
			}
			if _, err := c.DB().Collection("s").InsertOne(c.Ctx(ctx), bson.D{{Key: "_id", Value: i}}); err != nil {
				errs[i] = err
				c.Abort(ctx)
				return
			}
			errs[i] = c.Commit(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("session %d: %v", i, err)
		}
	}
	n, err := connect(t, e).DB().Collection("s").CountDocuments(ctx, bson.D{})
	if err != nil || n != int64(len(errs)) {
		t.Errorf("documents = %d, %v; want %d", n, err, len(errs))
	}
}

func TestBadTargets(t *testing.T) {
	base := testdb.Mongo(t)
	ctx := context.Background()
	opts := engine.Options{ConnectTimeout: 3 * time.Second}

	noDB := *base.URL
	noDB.Path = ""
	_, err := engine.Open(ctx, engine.Target{URL: &noDB, Password: base.Password}, opts)
	var te *engine.TargetError
	if !errors.Is(err, engine.ErrBadTarget) || !errors.As(err, &te) || te.Field != "database" {
		t.Errorf("no database: %v, want ErrBadTarget naming the database", err)
	}

	badParam := *base.URL
	badParam.RawQuery = "w=majority&readPreference=sometimes"
	_, err = engine.Open(ctx, engine.Target{URL: &badParam, Password: base.Password}, opts)
	if !errors.Is(err, engine.ErrBadTarget) {
		t.Errorf("bad readPreference: %v, want ErrBadTarget", err)
	}

	wrong := base
	wrong.Password = engine.NewSecret("not-the-password-x7")
	_, err = engine.Open(ctx, wrong, opts)
	if !errors.Is(err, engine.ErrAuth) {
		t.Errorf("wrong password: %v, want ErrAuth", err)
	}
	if err != nil && (strings.Contains(err.Error(), "not-the-password-x7") || strings.Contains(err.Error(), base.Password.Reveal())) {
		t.Errorf("error reveals a password: %v", err)
	}

	closed := *base.URL
	closed.Host = "127.0.0.1:1"
	q := url.Values{"directConnection": {"true"}, "authSource": {"admin"}}
	closed.RawQuery = q.Encode()
	_, err = engine.Open(ctx, engine.Target{URL: &closed, Password: base.Password}, opts)
	if !errors.Is(err, engine.ErrConnect) || errors.Is(err, engine.ErrAuth) {
		t.Errorf("closed port: %v, want ErrConnect", err)
	}
	if err != nil && strings.Contains(err.Error(), base.Password.Reveal()) {
		t.Errorf("error reveals the password: %v", err)
	}
}

// ConnOf refuses another engine's connection, naming its type.
func TestConnOf(t *testing.T) {
	var c engine.Conn = (*mongo.Conn)(nil)
	if mc, err := mongo.ConnOf(c); err != nil || mc != nil {
		t.Errorf("ConnOf(*mongo.Conn) = %v, %v", mc, err)
	}
	_, err := mongo.ConnOf(otherConn{})
	if err == nil || !strings.Contains(err.Error(), "mongo_test.otherConn") {
		t.Errorf("ConnOf(otherConn) = %v; want an error naming the type", err)
	}
}

type otherConn struct{ engine.Conn }

// A connection lost inside a transaction carries both the NetworkError and
// the TransientTransactionError labels: it is a lost connection (the worker
// reconnects, counted as such), not a conflict to retry.
func TestClassifyNetworkErrorInTransaction(t *testing.T) {
	err := driver.CommandError{Message: "connection(127.0.0.1:27017[-5]) incomplete read of message header: EOF",
		Labels: []string{"NetworkError", "TransientTransactionError"}}
	if got := (mongo.Dialect{}).Classify(err); got != engine.ClassConnLost {
		t.Errorf("Classify = %v, want conn_lost", got)
	}
}
