package drive

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Events a waiter for reading or writing wakes on; errors and hang-ups
// wake both, and stay set.
const (
	readEvents  = unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLERR | unix.EPOLLHUP
	writeEvents = unix.EPOLLOUT | unix.EPOLLERR | unix.EPOLLHUP
)

// fallbackSlice bounds a poll(2) wait off the thread, so that a deadline
// set while it waits is seen within it.
const fallbackSlice = 50 * time.Millisecond

// Conn is a connected socket taken out of Go's netpoller and waited on by
// a Thread (see Adopt). Reads and writes are system calls the Go
// scheduler does not see: on a non-blocking socket they never block.
// It is a net.Conn, deadlines included; Close may be called from any
// goroutine.
type Conn struct {
	fd      int
	network string
	la, ra  net.Addr
	t       atomic.Pointer[Thread]

	// events holds the epoll events the thread saw and no wait consumed
	// yet. waiter and want are the thread's own: the task waiting on the
	// socket and for what.
	events atomic.Uint32
	waiter *task
	want   uint32

	rdl, wdl atomic.Int64 // deadlines on the thread's clock (now); 0: none
	// state counts the reads and writes in progress; closedBit is set by
	// Close, and the last of them (or Close) closes the socket.
	state atomic.Int64

	// On a ring (NewRingThread), the thread's own: the receive and the
	// send in flight, the send's copy of what was written, the send's
	// failure, and whether what is in flight was cancelled.
	rop, sop  *ringOp
	sbuf      []byte
	sendErr   error
	cancelled bool
}

const closedBit = int64(1) << 62

var _ net.Conn = (*Conn)(nil)

// Adopt hands nc, a socket just dialled, to the thread ctx names: it
// returns a Conn on a duplicate of nc's socket and closes nc, which takes
// the socket out of Go's netpoller. Without a thread in ctx, or for a
// connection that is not a socket, it returns nc as it is.
func Adopt(ctx context.Context, nc net.Conn) (net.Conn, error) {
	t := ThreadOf(ctx)
	if t == nil {
		return nc, nil
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nc, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nc, nil
	}
	fd := -1
	var derr error
	if err := rc.Control(func(f uintptr) { fd, derr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		derr = err
	}
	if derr != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("drive: duplicating the socket: %w", derr)
	}
	c := &Conn{fd: fd, network: nc.LocalAddr().Network(), la: nc.LocalAddr(), ra: nc.RemoteAddr()}
	_ = nc.Close() // the duplicate keeps the socket open, non-blocking
	if err := t.register(c); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	c.t.Store(t)
	return c, nil
}

// acquire counts an operation in; false when the Conn is closed.
func (c *Conn) acquire() bool {
	if c.state.Add(1)&closedBit != 0 {
		c.release()
		return false
	}
	return true
}

func (c *Conn) release() {
	if c.state.Add(-1) == closedBit {
		c.closeFD()
	}
}

func (c *Conn) closeFD() {
	if c.state.CompareAndSwap(closedBit, closedBit|1<<61) {
		_ = unix.Close(c.fd)
	}
}

func (c *Conn) opErr(op string, err error) error {
	if err == io.EOF {
		return err
	}
	return &net.OpError{Op: op, Net: c.network, Source: c.la, Addr: c.ra, Err: err}
}

// Read reads what the socket holds, waiting for data when it is empty.
func (c *Conn) Read(p []byte) (int, error) {
	if !c.acquire() {
		return 0, c.opErr("read", net.ErrClosed)
	}
	defer c.release()
	if len(p) == 0 {
		return 0, nil
	}
	if t, k := c.onRing(); k != nil {
		n, err := c.ringRead(t, k, p)
		if err != nil {
			return n, c.opErr("read", err)
		}
		return n, nil
	}
	c.flushForeign()
	for {
		if expired(c.rdl.Load()) {
			return 0, c.opErr("read", os.ErrDeadlineExceeded)
		}
		n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		switch e {
		case 0:
			if n == 0 {
				return 0, io.EOF
			}
			return int(n), nil
		case unix.EINTR:
		case unix.EAGAIN:
			if err := c.wait(readEvents, unix.EPOLLIN, unix.POLLIN, &c.rdl); err != nil {
				return 0, c.opErr("read", err)
			}
		default:
			return 0, c.opErr("read", e)
		}
	}
}

// Write writes all of p, waiting for room when the socket is full.
func (c *Conn) Write(p []byte) (int, error) {
	if !c.acquire() {
		return 0, c.opErr("write", net.ErrClosed)
	}
	defer c.release()
	if t, k := c.onRing(); k != nil && len(p) > 0 {
		n, err := c.ringWrite(t, k, p)
		if err != nil {
			return n, c.opErr("write", err)
		}
		return n, nil
	}
	c.flushForeign()
	w := 0
	for w < len(p) {
		if expired(c.wdl.Load()) {
			return w, c.opErr("write", os.ErrDeadlineExceeded)
		}
		n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(c.fd), uintptr(unsafe.Pointer(&p[w])), uintptr(len(p)-w), unix.MSG_NOSIGNAL, 0, 0)
		switch e {
		case 0:
			w += int(n)
		case unix.EINTR:
		case unix.EAGAIN:
			if err := c.wait(writeEvents, unix.EPOLLOUT, unix.POLLOUT, &c.wdl); err != nil {
				return w, c.opErr("write", err)
			}
		default:
			return w, c.opErr("write", e)
		}
	}
	return w, nil
}

// onRing returns c's thread and the task calling, when the caller is
// one of the thread's workers and the thread's connections go through
// its ring.
func (c *Conn) onRing() (*Thread, *task) {
	if t := c.t.Load(); t != nil && t.useRing {
		if k := t.current(); k != nil && t.ring != nil {
			return t, k
		}
	}
	return nil, nil
}

// flushForeign submits what c's ring thread queued, when a goroutine
// other than its workers reads or writes c (Thread.flushForeign).
func (c *Conn) flushForeign() {
	if t := c.t.Load(); t != nil && t.useRing {
		t.flushForeign()
	}
}

func expired(dl int64) bool { return dl != 0 && now() >= dl }

// wait waits until the socket may be ready for what want names (edge
// bit: the event that wait consumes), the deadline in dl passes (error)
// or the Conn closes (error). On one of its thread's workers it suspends
// the worker; anywhere else it polls.
func (c *Conn) wait(want, edge uint32, pollEv int16, dl *atomic.Int64) error {
	if c.state.Load()&closedBit != 0 {
		return net.ErrClosed
	}
	if c.events.Load()&want != 0 {
		c.events.And(^edge)
		return nil // seen since the last wait: try again
	}
	if t := c.t.Load(); t != nil {
		if k := t.current(); k != nil {
			c.waiter, c.want = k, want
			t.suspend(k, dl.Load(), false)
			c.waiter = nil
			c.events.And(^edge)
			if c.state.Load()&closedBit != 0 {
				return net.ErrClosed
			}
			return nil
		}
	}
	return c.pollWait(pollEv, dl)
}

// pollWait is wait off the thread: poll(2), which the Go scheduler sees.
func (c *Conn) pollWait(ev int16, dl *atomic.Int64) error {
	for {
		if c.state.Load()&closedBit != 0 {
			return net.ErrClosed
		}
		timeout := fallbackSlice
		if d := dl.Load(); d != 0 {
			left := time.Duration(d - now())
			if left <= 0 {
				return os.ErrDeadlineExceeded
			}
			timeout = min(timeout, left)
		}
		fds := []unix.PollFd{{Fd: int32(c.fd), Events: ev}}
		n, err := unix.Poll(fds, int((timeout+time.Millisecond-1)/time.Millisecond))
		if n > 0 || (err != nil && err != unix.EINTR) {
			return err
		}
	}
}

// expiredOrClosed tells the thread whether a waiter on c must wake to see
// a deadline or its closing.
func (c *Conn) expiredOrClosed() bool {
	return c.state.Load()&closedBit != 0 || c.rdl.Load() != 0 || c.wdl.Load() != 0
}

// Close closes the connection; a wait in progress returns net.ErrClosed.
func (c *Conn) Close() error {
	for {
		s := c.state.Load()
		if s&closedBit != 0 {
			return c.opErr("close", net.ErrClosed)
		}
		if c.state.CompareAndSwap(s, s|closedBit) {
			break
		}
	}
	if t := c.t.Load(); t != nil {
		t.unregister(c)
	}
	if c.state.Load() == closedBit {
		c.closeFD()
	}
	return nil
}

// LocalAddr returns the local address.
func (c *Conn) LocalAddr() net.Addr { return c.la }

// RemoteAddr returns the server's address.
func (c *Conn) RemoteAddr() net.Addr { return c.ra }

// SetDeadline sets the read and write deadlines.
func (c *Conn) SetDeadline(t time.Time) error {
	c.rdl.Store(clock(t))
	c.wdl.Store(clock(t))
	c.changed(t)
	return nil
}

// SetReadDeadline sets the read deadline.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.rdl.Store(clock(t))
	c.changed(t)
	return nil
}

// SetWriteDeadline sets the write deadline.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.wdl.Store(clock(t))
	c.changed(t)
	return nil
}

// changed wakes the thread when a deadline is set, so that a worker
// waiting on c sees it.
func (c *Conn) changed(t time.Time) {
	if th := c.t.Load(); th != nil && !t.IsZero() {
		th.kick()
	}
}

// base is the instant the thread's clock counts from: deadlines and
// timers are nanoseconds since it on the monotonic clock, so that a
// wall clock stepped or slewed (by NTP, or a virtual machine's host)
// moves none of them.
var base = time.Now()

// now is the thread's clock: monotonic nanoseconds since base, at least 1.
func now() int64 { return int64(time.Since(base)) + 1 }

// clock turns a deadline into the thread's clock (0: none; at least 1:
// a deadline long past). A deadline with a monotonic reading (from
// time.Now) is placed by it, one without by its wall clock.
func clock(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return max(int64(t.Sub(base))+1, 1)
}
