// Package paymentstest holds what the tests of workload/payments and of
// its MongoDB implementation share.
package paymentstest

import (
	"context"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/payments"
)

// Parse returns a new payments workload with args parsed.
func Parse(t *testing.T, args ...string) *payments.Payments {
	t.Helper()
	w := payments.New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	return w
}

// Connect opens a connection of any engine, closed when t ends.
func Connect(t *testing.T, e engine.Engine) engine.Conn {
	t.Helper()
	c, err := e.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
