package testdb

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/dbarena/dbarena/engine"
)

// TestMongoTransaction needs the MongoDB test server (DBARENA_TEST_MONGO, or
// scripts/testservers start mongo): a fresh client on Mongo's URL, in an
// Isolated database, commits a multi-document transaction whose writes no
// one sees before the commit, and the database is gone after the test.
func TestMongoTransaction(t *testing.T) {
	base := Mongo(t)
	var name string
	t.Run("isolated", func(t *testing.T) {
		target := Isolated(t, base)
		name = strings.TrimPrefix(target.URL.Path, "/")
		if !strings.HasPrefix(name, "bench_t") {
			t.Fatalf("Isolated gave %s, want a database bench_t…", target)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := mongoConnect(target)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Disconnect(context.Background())
		coll := c.Database(name).Collection("accounts")

		sess, err := c.StartSession()
		if err != nil {
			t.Fatalf("StartSession: %v", err)
		}
		defer sess.EndSession(context.Background())
		if err := sess.StartTransaction(); err != nil {
			t.Fatalf("StartTransaction: %v", err)
		}
		sctx := mongo.NewSessionContext(ctx, sess)
		docs := []any{bson.D{{Key: "_id", Value: 1}, {Key: "balance", Value: 100}}, bson.D{{Key: "_id", Value: 2}, {Key: "balance", Value: 50}}}
		if _, err := coll.InsertMany(sctx, docs); err != nil {
			t.Fatalf("insert in the transaction: %v", err)
		}
		if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 0 {
			t.Errorf("outside the open transaction: %d documents (err %v), want 0", n, err)
		}
		if err := sess.CommitTransaction(sctx); err != nil {
			t.Fatalf("CommitTransaction: %v", err)
		}

		var got struct {
			Balance int `bson:"balance"`
		}
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 2}}).Decode(&got); err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if got.Balance != 50 {
			t.Errorf("balance of _id 2 = %d, want 50", got.Balance)
		}
		if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
			t.Errorf("after the commit: %d documents (err %v), want 2", n, err)
		}
	})
	if name == "" {
		return
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := mongoConnect(base)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	names, err := c.ListDatabaseNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names, name) {
		t.Errorf("database %s still exists after the test", name)
	}
}

// TestMongoWrongPassword needs the MongoDB test server: it runs with
// authentication, so a wrong password is refused.
func TestMongoWrongPassword(t *testing.T) {
	bad := Mongo(t)
	bad.Password = engine.NewSecret("not-" + bad.Password.Reveal())
	c, err := mongoConnect(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = c.Ping(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "Authentication failed") {
		t.Fatalf("ping with a wrong password: err = %v, want Authentication failed", err)
	}
}
