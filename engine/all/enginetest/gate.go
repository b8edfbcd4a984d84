package enginetest

import (
	"context"
	"sync/atomic"

	"github.com/dbarena/dbarena/engine"
)

// CommitGate is a connection whose next COMMIT after Arm waits: Reached
// is closed when it is about to be sent, and it is sent once Release is
// called. A test looks meanwhile, from another connection, at what the
// open transaction holds (its locks, its predicate locks).
type CommitGate struct {
	engine.SQLConn
	armed   atomic.Bool
	reached chan struct{}
	release chan struct{}
}

// NewCommitGate wraps c; its COMMITs go at once until Arm.
func NewCommitGate(c engine.SQLConn) *CommitGate {
	return &CommitGate{SQLConn: c, reached: make(chan struct{}), release: make(chan struct{})}
}

// Arm makes the next COMMIT wait for Release. A gate is armed once.
func (g *CommitGate) Arm() { g.armed.Store(true) }

// Reached is closed when the armed COMMIT waits.
func (g *CommitGate) Reached() <-chan struct{} { return g.reached }

// Release lets the waiting COMMIT go.
func (g *CommitGate) Release() { close(g.release) }

// Commit commits; armed, it first waits for Release.
func (g *CommitGate) Commit(ctx context.Context) error {
	if g.armed.CompareAndSwap(true, false) {
		close(g.reached)
		<-g.release
	}
	return g.SQLConn.Commit(ctx)
}
