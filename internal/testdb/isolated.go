package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
)

// Isolated returns a target that shares base's server but sees none of
// the tables of other tests: a fresh schema on PostgreSQL (selected with
// the search_path connection parameter), a fresh database bench_… on
// MySQL/MariaDB and on MongoDB (named in the URL's path; the user still
// authenticates against its own database). SQLite targets from SQLite are
// fresh already and come back as they are. The schema or database is dropped
// when the test ends.
//
// For PostgreSQL and MySQL, the engine for base's scheme must be registered
// (imported) by the test; MongoDB needs no engine (testdb uses the driver).
func Isolated(t testing.TB, base engine.Target) engine.Target {
	t.Helper()
	switch base.URL.Scheme {
	case "sqlite":
		return base
	case "mongodb":
		return isolatedMongo(t, base)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eng, err := engine.Open(ctx, base, engine.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("testdb: opening %s: %v", base.Redacted(), err)
	}
	defer eng.Close()
	c, err := eng.Connect(ctx)
	if err != nil {
		t.Fatalf("testdb: connecting to %s: %v", base.Redacted(), err)
	}
	defer c.Close()
	sc, err := engine.SQL(c)
	if err != nil {
		t.Fatalf("testdb: %s: %v", base.Redacted(), err)
	}

	name := "bench_t" + randomSuffix(t)
	u := *base.URL
	var create, drop string
	switch base.URL.Scheme {
	case "postgres":
		create, drop = "CREATE SCHEMA "+name, "DROP SCHEMA IF EXISTS "+name+" CASCADE"
		q := u.Query()
		q.Set("search_path", name)
		u.RawQuery = q.Encode()
	case "mysql":
		create, drop = "CREATE DATABASE "+name, "DROP DATABASE IF EXISTS "+name
		u.Path = "/" + name
	default:
		t.Fatalf("testdb: Isolated does not know scheme %q", base.URL.Scheme)
	}
	if err := sc.Exec(ctx, create); err != nil {
		t.Fatalf("testdb: %s on %s: %v", create, base.Redacted(), err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		eng, err := engine.Open(ctx, base, engine.Options{ConnectTimeout: 10 * time.Second})
		if err != nil {
			t.Errorf("testdb: cleanup: %v", err)
			return
		}
		defer eng.Close()
		c, err := eng.Connect(ctx)
		if err != nil {
			t.Errorf("testdb: cleanup: %v", err)
			return
		}
		defer c.Close()
		sc, err := engine.SQL(c)
		if err != nil {
			t.Errorf("testdb: cleanup: %v", err)
			return
		}
		if err := sc.Exec(ctx, drop); err != nil {
			t.Errorf("testdb: %s: %v", drop, err)
		}
	})
	out := base
	out.URL = &u
	return out
}

func randomSuffix(t testing.TB) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
