//go:build !linux

package drive

import (
	"context"
	"errors"
	"net"
	"time"
)

// unsupported says threads need Linux's epoll.
func unsupported() error { return errors.New("client threads need Linux's epoll") }

// Thread is not available on this system; NewThread fails.
type Thread struct{}

// NewThread fails: threads need Linux.
func NewThread() (*Thread, error) { return nil, errors.New("drive: threads need Linux") }

// Close does nothing.
func (t *Thread) Close() error { return nil }

// Go does nothing.
func (t *Thread) Go(f func()) {}

// Run does nothing.
func (t *Thread) Run() error { return nil }

// Interrupt does nothing.
func (t *Thread) Interrupt() {}

func (t *Thread) sleep(ctx context.Context, d time.Duration) (ok, handled bool) { return false, false }

// Adopt returns nc as it is.
func Adopt(ctx context.Context, nc net.Conn) (net.Conn, error) { return nc, nil }
