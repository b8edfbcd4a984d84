package drive

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kernel's io_uring interface (include/uapi/linux/io_uring.h): the
// parts a ring of sends and receives on sockets needs. golang.org/x/sys
// has the system call numbers only.
const (
	ringOffSQ   = 0
	ringOffCQ   = 0x8000000
	ringOffSQEs = 0x10000000

	ringFeatSingleMmap = 1 << 0
	ringFeatExtArg     = 1 << 8

	ringEnterGetEvents = 1 << 0
	ringEnterExtArg    = 1 << 3

	ringOpRead        = 22
	ringOpSend        = 26
	ringOpRecv        = 27
	ringOpAsyncCancel = 14

	sqeIOLink          = 1 << 2
	sqeCQESkipSuccess  = 1 << 6
	ringCancelFD       = 1 << 1
	ringCancelAll      = 1 << 0
	ringCancelAny      = 1 << 2
	ringEntries        = 256
	ringUserKick       = ^uint64(0)     // the eventfd's read
	ringUserCancel     = ^uint64(0) - 1 // a cancellation's own completion
	ringSizeofSQE      = 64
	ringSizeofCQE      = 16
	ringSizeofParams   = 120
	ringSizeofEventArg = 24
)

// ringParams is struct io_uring_params.
type ringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cqOff struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

// ringSQE is struct io_uring_sqe, as the operations here fill it.
type ringSQE struct {
	opcode, flags uint8
	ioprio        uint16
	fd            int32
	off           uint64
	addr          uint64
	len           uint32
	opFlags       uint32
	userData      uint64
	pad           [3]uint64
}

// ringCQE is struct io_uring_cqe.
type ringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// ringEventArg is struct io_uring_getevents_arg.
type ringEventArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32
	ts        uint64
}

var _ = [1]struct{}{}[unsafe.Sizeof(ringParams{})-ringSizeofParams]
var _ = [1]struct{}{}[unsafe.Sizeof(ringSQE{})-ringSizeofSQE]
var _ = [1]struct{}{}[unsafe.Sizeof(ringCQE{})-ringSizeofCQE]
var _ = [1]struct{}{}[unsafe.Sizeof(ringEventArg{})-ringSizeofEventArg]

// ring is one io_uring instance of a thread. The thread writes its
// submissions and reaps its completions; another goroutine reading or
// writing one of the thread's connections submits what the thread has
// queued (Thread.flushForeign), so mu guards the submission side.
type ring struct {
	mu       sync.Mutex
	fd       int
	mem      []byte // the submission and completion rings (one mapping)
	sqesMem  []byte
	sqTail   *uint32 // the kernel reads it
	sqHead   *uint32 // the kernel writes it
	sqMask   uint32
	sqArray  unsafe.Pointer
	sqes     unsafe.Pointer
	cqHead   *uint32 // the kernel reads it
	cqTail   *uint32 // the kernel writes it
	cqMask   uint32
	cqes     unsafe.Pointer
	tail     uint32 // the next submission's index, published at submit
	queued   uint32 // submissions written since the tail was published
	closed   bool   // released: nothing may enter it
	lastSend *ringSQE
	lastConn *Conn
}

// RingUnsupported says why io_uring cannot run a thread's connections
// here (the kernel lacks it or a sandbox refuses it), or returns nil.
func RingUnsupported() error {
	r, err := newRing()
	if err != nil {
		return err
	}
	r.close()
	return nil
}

// newRing sets up a ring. It is not a single issuer's, since a
// goroutine other than the thread may submit (flushForeign), and takes
// no cooperative task work: completions delayed to the thread's next
// entry into the kernel cost it more throughput than the interruptions
// they save (docs/BENCHMARKS.md, "io_uring").
func newRing() (*ring, error) {
	var p ringParams
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, ringEntries, uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, fmt.Errorf("drive: io_uring_setup: %w", e)
	}
	r := &ring{fd: int(fd)}
	if p.features&ringFeatSingleMmap == 0 || p.features&ringFeatExtArg == 0 {
		_ = unix.Close(r.fd)
		return nil, errors.New("drive: io_uring: the kernel lacks one mapping for both rings or timed waits (Linux 5.11 or later needed)")
	}
	size := max(p.sqOff.array+p.sqEntries*4, p.cqOff.cqes+p.cqEntries*ringSizeofCQE)
	mem, err := unix.Mmap(r.fd, ringOffSQ, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		_ = unix.Close(r.fd)
		return nil, fmt.Errorf("drive: io_uring: mmap: %w", err)
	}
	sqes, err := unix.Mmap(r.fd, ringOffSQEs, int(p.sqEntries*ringSizeofSQE), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		_ = unix.Munmap(mem)
		_ = unix.Close(r.fd)
		return nil, fmt.Errorf("drive: io_uring: mmap: %w", err)
	}
	base := unsafe.Pointer(&mem[0])
	r.mem, r.sqesMem = mem, sqes
	r.sqHead = (*uint32)(unsafe.Add(base, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(base, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(base, p.sqOff.ringMask))
	r.sqArray = unsafe.Add(base, p.sqOff.array)
	r.cqHead = (*uint32)(unsafe.Add(base, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(base, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(base, p.cqOff.ringMask))
	r.cqes = unsafe.Add(base, p.cqOff.cqes)
	r.sqes = unsafe.Pointer(&sqes[0])
	r.tail = atomic.LoadUint32(r.sqTail)
	return r, nil
}

// full tells whether the submission ring has no free entry.
func (r *ring) full() bool { return r.tail-atomic.LoadUint32(r.sqHead) > r.sqMask }

func (r *ring) close() {
	_ = unix.Munmap(r.sqesMem)
	_ = unix.Munmap(r.mem)
	_ = unix.Close(r.fd)
}

// sqe returns the next submission entry, cleared, submitting what is
// queued first when the ring is full (an error then is the run's end).
// r.mu is held.
func (r *ring) sqe() (*ringSQE, error) {
	if r.full() {
		r.publish()
		if err := r.enter(0, -1); err != nil {
			return nil, err
		}
	}
	i := r.tail & r.sqMask
	s := (*ringSQE)(unsafe.Add(r.sqes, uintptr(i)*ringSizeofSQE))
	*s = ringSQE{}
	*(*uint32)(unsafe.Add(r.sqArray, uintptr(i)*4)) = i
	r.tail++
	r.queued++
	r.lastSend, r.lastConn = nil, nil
	return s, nil
}

// publish makes what is queued visible to the kernel, with r.mu held.
func (r *ring) publish() {
	atomic.StoreUint32(r.sqTail, r.tail)
	r.queued = 0
	r.lastSend, r.lastConn = nil, nil
}

// enter submits what is published (publish, under r.mu) and, when wait
// is set, waits for a completion or timeout ns (-1: none). It blocks in
// the kernel without telling the Go scheduler, as Thread.wait does, for
// the same reason; a signal ends the wait early (EINTR, no error).
// Whoever enters first submits what is published: the kernel takes
// every entry between its head and the tail.
func (r *ring) enter(wait uint32, timeout int64) error {
	submit := r.sqMask + 1
	var arg ringEventArg
	var ts unix.Timespec
	flags := uint32(ringEnterExtArg)
	if wait > 0 {
		flags |= ringEnterGetEvents
	}
	if wait > 0 && timeout >= 0 {
		ts = unix.NsecToTimespec(timeout)
		arg.ts = uint64(uintptr(unsafe.Pointer(&ts)))
	}
	var e unix.Errno
	if noAsyncPreempt && wait > 0 {
		_, _, e = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(wait), uintptr(flags), uintptr(unsafe.Pointer(&arg)), ringSizeofEventArg)
	} else {
		_, _, e = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(wait), uintptr(flags), uintptr(unsafe.Pointer(&arg)), ringSizeofEventArg)
	}
	if e == 0 || e == unix.EINTR || e == unix.ETIME || e == unix.EAGAIN || e == unix.EBUSY {
		return nil
	}
	return fmt.Errorf("drive: io_uring_enter: %w", e)
}

// reap calls f for every completion there is, then frees their entries.
func (r *ring) reap(f func(userData uint64, res int32)) {
	head := atomic.LoadUint32(r.cqHead)
	tail := atomic.LoadUint32(r.cqTail)
	for ; head != tail; head++ {
		c := (*ringCQE)(unsafe.Add(r.cqes, uintptr(head&r.cqMask)*ringSizeofCQE))
		f(c.userData, c.res)
	}
	atomic.StoreUint32(r.cqHead, head)
}

// ringOp is one kind of operation of a connection on the ring: its
// receive or its send. The thread owns it; buf keeps what the kernel
// reads or writes alive (and unmoved) until the completion comes.
type ringOp struct {
	id   uint64
	c    *Conn
	buf  []byte
	busy bool  // submitted or queued, its completion not seen
	done bool  // completion seen, its result not yet taken
	res  int32 // the completion's result
	// linked is set on a send whose completion is skipped on success:
	// the receive queued after it ends its busy state.
	linked bool
}

// NewRingThread returns a thread whose workers' connections send and
// receive through io_uring instead of waiting on epoll: a worker's send
// and the receive after it are queued, not made, and when no worker can
// run the thread submits every queued operation and waits for
// completions in one system call. RingUnsupported says whether the
// kernel allows it; Run fails when it does not.
func NewRingThread() (*Thread, error) {
	t, err := NewThread()
	if err != nil {
		return nil, err
	}
	t.useRing = true
	t.kickBuf = new([8]byte)
	return t, nil
}

// newOps gives c its two operations on the ring, with t.mu held.
func (t *Thread) newOps(c *Conn) {
	c.rop = &ringOp{id: uint64(len(t.ops)), c: c}
	c.sop = &ringOp{id: uint64(len(t.ops) + 1), c: c}
	t.ops = append(t.ops, c.rop, c.sop)
}

// openRing sets up the thread's ring, on the thread's own OS thread
// (the kernel binds a single issuer's ring to the thread that made it).
func (t *Thread) openRing() error {
	r, err := newRing()
	if err != nil {
		return err
	}
	t.ringMu.Lock()
	t.ring = r
	t.ringMu.Unlock()
	return nil
}

// closeRing cancels what is in flight, waits for every completion (the
// kernel may still write into a receive's buffer until it comes) and
// releases the ring. A ring whose operations did not end within a
// second is kept, with their buffers, for the process's life.
func (t *Thread) closeRing() {
	r := t.ring
	if r == nil {
		return
	}
	t.ringMu.Lock()
	t.ring = nil
	t.ringMu.Unlock()
	r.mu.Lock()
	if s, err := r.sqe(); err == nil {
		s.opcode, s.opFlags, s.userData, s.flags = ringOpAsyncCancel, ringCancelAny, ringUserCancel, sqeCQESkipSuccess
	}
	r.publish()
	r.mu.Unlock()
	for range 20 {
		if err := r.enter(1, int64(50*time.Millisecond)); err != nil {
			break
		}
		r.reap(func(id uint64, res int32) { t.complete(id, res, false) })
		if !t.inFlight() {
			r.mu.Lock() // a foreign flush that found the ring ends first
			r.closed = true
			r.mu.Unlock()
			r.close()
			return
		}
	}
	leakedRings.Lock()
	leakedRings.rings = append(leakedRings.rings, leakedRing{r, t.ops, t.kickBuf})
	leakedRings.Unlock()
}

// leakedRings keeps rings whose operations never completed, and their
// buffers, from the garbage collector.
var leakedRings struct {
	sync.Mutex
	rings []leakedRing
}

type leakedRing struct {
	r    *ring
	ops  []*ringOp
	kick *[8]byte
}

// inFlight tells whether an operation still waits for its completion.
func (t *Thread) inFlight() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.kickArmed {
		return true
	}
	for _, o := range t.ops {
		if o.busy {
			return true
		}
	}
	return false
}

// ringPoll is poll on a ring: it submits what the workers queued and
// waits for completions, the eventfd's read among them, and timers.
func (t *Thread) ringPoll(timeout int64) error {
	r := t.ring
	r.mu.Lock()
	if !t.kickArmed {
		s, err := r.sqe()
		if err != nil {
			r.mu.Unlock()
			return err
		}
		s.opcode, s.fd, s.addr, s.len, s.userData = ringOpRead, int32(t.ev), uint64(uintptr(unsafe.Pointer(&t.kickBuf[0]))), 8, ringUserKick
		t.kickArmed = true
	}
	r.publish()
	r.mu.Unlock()
	if err := r.enter(1, timeout); err != nil {
		return err
	}
	r.reap(func(id uint64, res int32) { t.complete(id, res, true) })
	return nil
}

// complete takes one completion; wake readies the task waiting for it.
func (t *Thread) complete(id uint64, res int32, wake bool) {
	switch id {
	case ringUserCancel:
		return
	case ringUserKick:
		t.kickArmed = false
		if wake {
			t.kicked.Store(false)
			t.wakeExpired()
		}
		return
	}
	t.mu.Lock()
	if id >= uint64(len(t.ops)) {
		t.mu.Unlock()
		return
	}
	o := t.ops[id]
	t.mu.Unlock()
	c := o.c
	if o == c.sop {
		o.busy, o.linked = false, false
		if res < 0 {
			c.sendErr = unix.Errno(-res)
		} else if int(res) < len(o.buf) {
			c.sendErr = io.ErrShortWrite
		}
	} else {
		t.completions++
		o.busy, o.done, o.res, o.buf = false, true, res, nil
		if c.sop.linked {
			c.sop.busy, c.sop.linked = false, false
		}
	}
	if !c.rop.busy && !c.sop.busy {
		c.cancelled = false
	}
	if wake {
		if k := c.waiter; k != nil {
			c.waiter = nil
			t.enqueue(k)
		}
	}
}

// ringWrite is Write on a ring: p is copied and its send queued, linked
// to the receive that follows it.
func (c *Conn) ringWrite(t *Thread, k *task, p []byte) (int, error) {
	r := t.ring
	r.mu.Lock()
	if r.lastConn == c && r.lastSend != nil { // this conn's send, not yet published
		c.sbuf = append(c.sbuf, p...)
		c.sop.buf = c.sbuf
		r.lastSend.addr, r.lastSend.len = uint64(uintptr(unsafe.Pointer(&c.sbuf[0]))), uint32(len(c.sbuf))
		r.mu.Unlock()
		return len(p), nil
	}
	r.mu.Unlock()
	for c.sop.busy { // an earlier send, not followed by a receive
		if err := c.ringWait(t, k, &c.wdl); err != nil {
			return 0, err
		}
	}
	if err := c.sendErr; err != nil {
		return 0, err
	}
	if expired(c.wdl.Load()) {
		return 0, os.ErrDeadlineExceeded
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, err := r.sqe()
	if err != nil {
		t.abort(err)
		return 0, err
	}
	c.sbuf = append(c.sbuf[:0], p...)
	s.opcode, s.fd, s.addr, s.len, s.opFlags, s.userData = ringOpSend, int32(c.fd), uint64(uintptr(unsafe.Pointer(&c.sbuf[0]))), uint32(len(c.sbuf)), unix.MSG_NOSIGNAL|unix.MSG_WAITALL, c.sop.id
	c.sop.busy, c.sop.buf = true, c.sbuf
	r.lastSend, r.lastConn = s, c
	return len(p), nil
}

// ringRead is Read on a ring: the receive into p is queued, after the
// send just queued on c if there is one, and the worker waits for it.
func (c *Conn) ringRead(t *Thread, k *task, p []byte) (int, error) {
	r := t.ring
	for {
		if o := c.rop; o.done {
			o.done = false
			switch res := o.res; {
			case res > 0:
				return int(res), nil
			case res == 0:
				return 0, io.EOF
			case unix.Errno(-res) != unix.ECANCELED:
				return 0, unix.Errno(-res)
			}
			// cancelled: a failed send, the deadline or Close; else again
			if err := c.sendErr; err != nil {
				return 0, err
			}
		}
		if c.state.Load()&closedBit != 0 {
			return 0, net.ErrClosed
		}
		if expired(c.rdl.Load()) {
			return 0, os.ErrDeadlineExceeded
		}
		if err := c.sendErr; err != nil {
			return 0, err
		}
		r.mu.Lock()
		if r.lastConn == c && r.lastSend != nil && !r.full() {
			// the send just queued, the entry before this one
			r.lastSend.flags |= sqeIOLink | sqeCQESkipSuccess
			c.sop.linked = true
		}
		s, err := r.sqe()
		if err != nil {
			r.mu.Unlock()
			t.abort(err)
			return 0, err
		}
		s.opcode, s.fd, s.addr, s.len, s.userData = ringOpRecv, int32(c.fd), uint64(uintptr(unsafe.Pointer(&p[0]))), uint32(len(p)), c.rop.id
		c.rop.busy, c.rop.buf = true, p
		r.mu.Unlock()
		if err := c.ringWait(t, k, &c.rdl); err != nil {
			return 0, err
		}
	}
}

// ringWait suspends k until c's operation completes, its deadline (dl)
// passes or c closes; then the operation in flight is cancelled and the
// wait goes on until its completion, since the kernel holds its buffer
// until then. It returns an error only when the thread is stopping.
func (c *Conn) ringWait(t *Thread, k *task, dl *atomic.Int64) error {
	busy := func() bool { return (dl == &c.rdl && c.rop.busy) || (dl == &c.wdl && c.sop.busy) }
	for busy() {
		var at int64
		if !c.cancelled {
			at = dl.Load()
		}
		c.waiter = k
		t.suspend(k, at, false)
		c.waiter = nil
		if busy() && !c.cancelled && (c.state.Load()&closedBit != 0 || expired(dl.Load())) {
			r := t.ring
			r.mu.Lock()
			s, err := r.sqe()
			if err != nil {
				r.mu.Unlock()
				t.abort(err)
				return err
			}
			s.opcode, s.fd, s.opFlags, s.userData, s.flags = ringOpAsyncCancel, int32(c.fd), ringCancelFD|ringCancelAll, ringUserCancel, sqeCQESkipSuccess
			c.cancelled = true
			r.mu.Unlock()
		}
	}
	return nil
}

// flushForeign submits what the thread's workers queued, for a goroutine
// other than the thread's that reads or writes one of its connections:
// pgconn's background reader waits, off the thread, for a reply to a
// query its worker queued and then blocked on the reader without
// yielding to the thread. Reaping stays the thread's.
func (t *Thread) flushForeign() {
	t.ringMu.Lock()
	r := t.ring
	t.ringMu.Unlock()
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed && r.queued > 0 {
		r.publish()
		_ = r.enter(0, -1) // a failure shows at the thread's next wait
	}
}
