package main

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/internal/testdb"
)

// A bad command line or an empty MONGODB_URL is a usage error, and a URL
// the driver cannot parse is reported without its password.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{nil, {"exists"}, {"list", "x"}, {"drop", ""}, {"exists", "a", "b"}} {
		if err := run(ctx, "mongodb://127.0.0.1", args, &bytes.Buffer{}); !errors.Is(err, errUsage) {
			t.Errorf("run(%q) = %v, want a usage error", args, err)
		}
	}
	if err := run(ctx, "", []string{"exists", "x"}, &bytes.Buffer{}); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "MONGODB_URL") {
		t.Errorf("empty MONGODB_URL: %v, want a usage error naming it", err)
	}
	err := run(ctx, "mongodb://bench:hunter2@127.0.0.1:notaport/", []string{"exists", "x"}, &bytes.Buffer{})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "MONGODB_URL") {
		t.Errorf("unparsable URL: %v, want an error naming MONGODB_URL without the password", err)
	}
}

// exists tells a database that has a collection from one that does not;
// drop removes it, and dropping a missing database is not an error.
func TestExistsAndDrop(t *testing.T) {
	ctx := context.Background()
	// A database of its own, dropped when the test ends.
	tg := testdb.Isolated(t, testdb.Mongo(t))
	name := strings.TrimPrefix(tg.URL.Path, "/")
	u := *tg.URL
	u.User = url.UserPassword(tg.Username(), tg.Password.Reveal())
	dsn := u.String()
	cl, err := mongo.Connect(options.Client().ApplyURI(dsn))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })

	if err := run(ctx, dsn, []string{"exists", name}, &bytes.Buffer{}); !errors.Is(err, errMissing) {
		t.Fatalf("exists before the database is made: %v, want errMissing", err)
	}
	if _, err := cl.Database(name).Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(ctx, dsn, []string{"exists", name}, &out); err != nil || strings.TrimSpace(out.String()) != name {
		t.Fatalf("exists: %v, printed %q; want nil and the name", err, out.String())
	}
	if err := run(ctx, dsn, []string{"drop", name}, &bytes.Buffer{}); err != nil {
		t.Fatalf("drop: %v", err)
	}
	if err := run(ctx, dsn, []string{"exists", name}, &bytes.Buffer{}); !errors.Is(err, errMissing) {
		t.Errorf("exists after drop: %v, want errMissing", err)
	}
	if err := run(ctx, dsn, []string{"drop", name}, &bytes.Buffer{}); err != nil {
		t.Errorf("drop of a missing database: %v, want nil", err)
	}
}
