package mongo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
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

// Node is a mongod started with --replSet, --auth and --keyFile that
// Initiate makes a one-node replica set with a root user.
type Node struct {
	// Host and Port are the node's address, also its member's host in
	// the replica set configuration.
	Host string
	Port int
	// ReplSet is the replica set's name (the node's --replSet).
	ReplSet string
	// User is created in admin with role root, with Password.
	User     string
	Password string
}

// Addr is host:port.
func (n Node) Addr() string { return net.JoinHostPort(n.Host, strconv.Itoa(n.Port)) }

// URL is the node's replica-set URL (no credentials): replicaSet and
// authSource=admin, which transactions and the root user need.
func (n Node) URL(database string) string {
	q := url.Values{"replicaSet": {n.ReplSet}, "authSource": {"admin"}}
	return "mongodb://" + n.Addr() + "/" + database + "?" + q.Encode()
}

// hello is the part of the hello command's answer Initiate reads.
type hello struct {
	SetName           string `bson:"setName"`
	IsWritablePrimary bool   `bson:"isWritablePrimary"`
}

// Initiate makes a freshly started node (--replSet, --auth, --keyFile) a
// one-node replica set with a root user:
//
//  1. it connects directly (directConnection=true, no credentials: the
//     localhost exception lets a client on the loopback in while the node
//     has no users),
//  2. runs replSetInitiate with one member, host:port, unless the node
//     already belongs to the replica set,
//  3. waits until the node is primary (hello's isWritablePrimary),
//  4. creates the user in admin with role root, unless that user can log
//     in already,
//  5. checks that a new client, connected through the replica-set URL and
//     authenticated as the user, gets an answer to ping (Check).
//
// Every step is idempotent: against an initiated node whose user exists
// it only waits for the primary and logs in. logf (nil: none) hears what
// was done; the password is never in what it hears or in an error. ctx
// bounds the whole.
func Initiate(ctx context.Context, n Node, logf func(format string, args ...any)) error {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	direct, err := mongo.Connect(directOptions(n.Addr()))
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
			{Key: "_id", Value: n.ReplSet},
			{Key: "members", Value: bson.A{bson.D{{Key: "_id", Value: 0}, {Key: "host", Value: n.Addr()}}}},
		}
		err := admin.RunCommand(ctx, bson.D{{Key: "replSetInitiate", Value: cfg}}).Err()
		switch {
		case err == nil:
			logf("initiated replica set %s with member %s", n.ReplSet, n.Addr())
		case hasCode(err, codeAlreadyInitialized), hasCode(err, codeUnauthorized):
			// A restarted node answers hello before it has loaded its
			// replica set configuration; its users closed the localhost
			// exception. Either way it is initiated: wait for the primary.
			logf("replica set %s is initiated already", n.ReplSet)
		default:
			return fmt.Errorf("replSetInitiate: %w", err)
		}
	case n.ReplSet:
		logf("replica set %s is initiated already", n.ReplSet)
	default:
		return fmt.Errorf("the node belongs to replica set %q, not %q", h.SetName, n.ReplSet)
	}

	var helloErr error // the last one, while the node changes state
	for !h.IsWritablePrimary {
		select {
		case <-ctx.Done():
			if helloErr != nil {
				return fmt.Errorf("the node did not become primary: %w (last hello: %v)", ctx.Err(), helloErr)
			}
			return fmt.Errorf("the node did not become primary: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
		h = hello{}
		helloErr = admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&h)
	}

	loginErr := Check(ctx, n)
	if loginErr == nil {
		logf("%s is primary; user %s logs in", n.Addr(), n.User)
		return nil
	}
	err = admin.RunCommand(ctx, bson.D{
		{Key: "createUser", Value: n.User},
		{Key: "pwd", Value: n.Password},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}},
	}).Err()
	if err != nil {
		if hasCode(err, codeUnauthorized) {
			return fmt.Errorf("user %s cannot log in (%v), and the node has users already, so the localhost exception no longer lets it be created: %w", n.User, loginErr, err)
		}
		return fmt.Errorf("createUser %s: %w", n.User, err)
	}
	logf("created user %s in admin with role root", n.User)
	if err := Check(ctx, n); err != nil {
		return err
	}
	logf("%s is primary; user %s logs in", n.Addr(), n.User)
	return nil
}

// Check logs in as the node's user with a new client through the
// replica-set URL and pings. (A client that connected before the node
// became primary would keep reporting that sessions are not supported.)
func Check(ctx context.Context, n Node) error {
	client, err := connect(n)
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		return fmt.Errorf("ping as %s through replica set %s: %w", n.User, n.ReplSet, err)
	}
	return nil
}

// directOptions are those of a client to the node alone, without
// credentials.
func directOptions(addr string) *options.ClientOptions {
	return options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true").
		SetServerSelectionTimeout(10 * time.Second)
}

// connect opens a client to the node's replica-set URL as its user.
func connect(n Node) (*mongo.Client, error) {
	return mongo.Connect(options.Client().
		ApplyURI(n.URL("")).
		SetAuth(options.Credential{Username: n.User, Password: n.Password, PasswordSet: true, AuthSource: "admin"}).
		SetServerSelectionTimeout(10 * time.Second))
}

func hasCode(err error, code int) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && se.HasErrorCode(code)
}
