// Command mongodb answers the two questions a benchmark script asks a
// mongod that has no shell installed: does a database exist, and drop the
// database this script created. scripts/bench-mongo uses it for the
// database the peer tool it measures writes to.
//
// The server's URL is read from the environment variable MONGODB_URL, so
// that its password never appears on a command line; it is never printed.
//
// Usage:
//
//	MONGODB_URL=… go run ./internal/tools/mongodb exists NAME
//	MONGODB_URL=… go run ./internal/tools/mongodb drop NAME
//
// exists exits 0 when the database NAME exists, 3 when it does not; drop
// drops it (a missing database is not an error). Exit status 1 on failure,
// 2 on a bad command line.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// errUsage marks a bad command line.
var errUsage = errors.New("usage: MONGODB_URL=… mongodb exists|drop NAME")

// errMissing is exists's answer when the database is not there.
var errMissing = errors.New("no such database")

func main() {
	err := run(context.Background(), os.Getenv("MONGODB_URL"), os.Args[1:], os.Stdout)
	switch {
	case err == nil:
	case errors.Is(err, errMissing):
		os.Exit(3)
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "mongodb:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "mongodb:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url string, args []string, stdout io.Writer) error {
	if len(args) != 2 || (args[0] != "exists" && args[0] != "drop") || args[1] == "" {
		return errUsage
	}
	if url == "" {
		return fmt.Errorf("%w (MONGODB_URL is empty)", errUsage)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cl, err := mongo.Connect(options.Client().ApplyURI(url))
	if err != nil {
		// The driver's parse errors quote the URL; name the variable instead.
		return errors.New("MONGODB_URL is not a valid MongoDB URL")
	}
	defer func() { _ = cl.Disconnect(context.WithoutCancel(ctx)) }()
	name := args[1]
	if args[0] == "drop" {
		if err := cl.Database(name).Drop(ctx); err != nil {
			return fmt.Errorf("drop %s: %w", name, err)
		}
		return nil
	}
	names, err := cl.ListDatabaseNames(ctx, bson.D{{Key: "name", Value: name}})
	if err != nil {
		return fmt.Errorf("list databases: %w", err)
	}
	if len(names) == 0 {
		return errMissing
	}
	fmt.Fprintln(stdout, name)
	return nil
}
