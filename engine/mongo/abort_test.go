package mongo_test

import (
	"bytes"
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	driver "go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/dbarena/dbarena/internal/testdb"
)

// holdProxy forwards TCP connections to a server. Once armed, it holds
// back the first message that starts a transaction, and everything its
// connection sends after it, until letGo: an operation the client wrote
// before giving up on it reaches the server late, as it does from a
// starved client machine. Other connections pass.
type holdProxy struct {
	ln     net.Listener
	server string

	mu       sync.Mutex
	armed    bool
	held     *net.Conn // the client connection held back
	release  chan struct{}
	answered chan struct{} // closed when the server answers what was held
}

func newHoldProxy(t *testing.T, server string) *holdProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdProxy{ln: ln, server: server, release: make(chan struct{}), answered: make(chan struct{})}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(client)
		}
	}()
	return p
}

func (p *holdProxy) addr() string { return p.ln.Addr().String() }

func (p *holdProxy) serve(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.server)
	if err != nil {
		return
	}
	defer server.Close()
	go func() {
		defer client.Close()
		buf := make([]byte, 64<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 {
				p.mu.Lock()
				if p.held == &client && !p.armed {
					select {
					case <-p.answered:
					default:
						close(p.answered)
					}
				}
				p.mu.Unlock()
				_, _ = client.Write(buf[:n]) // the client may have closed its end
			}
			if err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			p.mu.Lock()
			if p.armed && p.held == nil && bytes.Contains(buf[:n], []byte("startTransaction")) {
				p.held = &client
			}
			held, release := p.held == &client, p.release
			p.mu.Unlock()
			if held {
				<-release
			}
			if _, werr := server.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			// The server's end closes only after what the client sent
			// was delivered.
			return
		}
	}
}

func (p *holdProxy) arm() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armed = true
}

// letGo delivers what was held back and lets everything pass from now on.
func (p *holdProxy) letGo() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.armed {
		p.armed = false
		close(p.release)
	}
}

// isHolding tells whether a message is being held back.
func (p *holdProxy) isHolding() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held != nil
}

// TestAbortAfterInterruptedOperation: a transaction's first operation was
// written, its context ended before the reply, and Abort ran. When the
// operation reaches the server only after the abort, the server starts
// the transaction then; nothing would end it before the server's
// transaction lifetime limit (a minute), and it would hold its locks all
// that time (a dropDatabase waits for them). Abort must leave the server
// with no transaction of the session, however late the operation comes.
func TestAbortAfterInterruptedOperation(t *testing.T) {
	base := testdb.Isolated(t, testdb.Mongo(t))
	p := newHoldProxy(t, base.URL.Host)
	tg := base
	u := *base.URL
	u.Host = p.addr()
	q := u.Query()
	q.Del("replicaSet") // the members' addresses would bypass the proxy
	q.Set("directConnection", "true")
	u.RawQuery = q.Encode()
	tg.URL = &u
	e := open(t, tg)
	c := connect(t, e)
	ctx := context.Background()
	coll := c.DB().Collection("seats")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}

	p.arm()
	defer p.letGo()
	if err := c.Session().StartTransaction(); err != nil {
		t.Fatal(err)
	}
	octx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err := coll.FindOne(c.Ctx(octx), bson.D{{Key: "_id", Value: 1}}).Err()
	cancel()
	if err == nil || !p.isHolding() {
		t.Fatalf("the find in the transaction was not held back (err %v)", err)
	}
	c.Abort(c.Ctx(octx))
	p.letGo()

	select {
	case <-p.answered:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not answer the late operation within 10 s")
	}
	if n := openTransactions(t, e.Client(), c.Session().ID()); n > 0 {
		t.Fatalf("after Abort, the server has %d open transaction(s) of the session: the late operation started one", n)
	}
}

// openTransactions counts the server's transactions of session lsid, idle
// or running.
func openTransactions(t *testing.T, c *driver.Client, lsid bson.Raw) int {
	t.Helper()
	id, err := lsid.LookupErr("id")
	if err != nil {
		t.Fatalf("session id %v: %v", lsid, err)
	}
	cur, err := c.Database("admin").Aggregate(context.Background(), bson.A{
		bson.D{{Key: "$currentOp", Value: bson.D{{Key: "allUsers", Value: true}, {Key: "idleSessions", Value: true}}}},
		bson.D{{Key: "$match", Value: bson.D{{Key: "lsid.id", Value: id}, {Key: "transaction", Value: bson.D{{Key: "$exists", Value: true}}}}}},
	})
	if err != nil {
		t.Fatalf("$currentOp: %v", err)
	}
	var ops []bson.M
	if err := cur.All(context.Background(), &ops); err != nil {
		t.Fatalf("$currentOp: %v", err)
	}
	return len(ops)
}
