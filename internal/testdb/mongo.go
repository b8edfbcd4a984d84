package testdb

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
)

// isolatedMongo gives Isolated's MongoDB branch: a target for a fresh
// database bench_t… on base's server, dropped when t ends. MongoDB creates
// the database with its first write; the server is pinged here so that a
// test without one fails at once.
func isolatedMongo(t testing.TB, base engine.Target) engine.Target {
	t.Helper()
	out := mongoDatabaseTarget(base, "bench_t"+randomSuffix(t))
	name := strings.TrimPrefix(out.URL.Path, "/")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mongoConnect(base)
	if err != nil {
		t.Fatalf("testdb: connecting to %s: %v", base.Redacted(), err)
	}
	defer c.Disconnect(context.Background())
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("testdb: ping %s: %v", base.Redacted(), err)
	}

	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := mongoConnect(base)
		if err != nil {
			t.Errorf("testdb: cleanup: %v", err)
			return
		}
		defer c.Disconnect(context.Background())
		if err := c.Database(name).Drop(ctx); err != nil {
			t.Errorf("testdb: dropping database %s on %s: %v", name, base.Redacted(), err)
		}
	})
	return out
}

// mongoDatabaseTarget returns base with its URL naming database name. The
// user still authenticates against the database it is defined in: an
// authSource parameter is kept, and when there is none (the driver would
// then use the URL's database) it is set to base's database, or admin.
func mongoDatabaseTarget(base engine.Target, name string) engine.Target {
	u := *base.URL
	if q := u.Query(); u.User != nil && q.Get("authSource") == "" {
		src := strings.TrimPrefix(base.URL.Path, "/")
		if src == "" {
			src = "admin"
		}
		q.Set("authSource", src)
		u.RawQuery = q.Encode()
	}
	u.Path, u.RawPath = "/"+name, ""
	out := base
	out.URL = &u
	return out
}

// mongoConnect opens a MongoDB client for target. The password goes to the
// driver as a credential, never into a URL string.
func mongoConnect(target engine.Target) (*mongo.Client, error) {
	opts := options.Client().ApplyURI(target.URL.String()).SetServerSelectionTimeout(10 * time.Second)
	if target.Password.IsSet() {
		if target.Username() == "" {
			return nil, fmt.Errorf("%s: a password but no user name", target.Redacted())
		}
		if opts.Auth != nil { // else the URL did not parse: Connect says why
			opts.Auth.Password = target.Password.Reveal()
			opts.Auth.PasswordSet = true
		}
	}
	c, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", target.Redacted(), err)
	}
	return c, nil
}
