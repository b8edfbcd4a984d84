package drive

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// unsupported returns nil: Linux has epoll.
func unsupported() error { return nil }

// Thread is one OS thread running workers as coroutines (see the package
// documentation). Add workers with Go, then call Run once.
type Thread struct {
	ep, ev int // epoll instance; eventfd that wakes it

	mu    sync.Mutex // guards conns, closing and the flags below it
	conns map[int32]*Conn
	// closing holds the conns closed since the thread last looked, whose
	// waiter must wake.
	closing []*Conn
	// ran is set when Run starts; running while its coroutines run, the
	// epoll instance in use; closed when Close was called.
	ran, running, closed bool

	// evMu orders writes to ev (kick) before its closing; evClosed is set
	// when ev is closed, after which kicks do nothing.
	evMu     sync.Mutex
	evClosed bool

	tasks  []*task
	ready  []*task
	timers timerHeap
	// cur is the task running, nil between tasks; read by any goroutine
	// (current), written by the thread.
	cur atomic.Pointer[task]
	// progress counts the tasks resumed: the watchdog (Run) reads it.
	progress atomic.Uint64
	// quit holds why the run must end before its workers return (Close,
	// the watchdog), nil until then.
	quit    atomic.Pointer[error]
	stopped atomic.Bool // Interrupt was called
	swept   bool        // sleeping tasks were woken after Interrupt
	kicked  atomic.Bool // ev written and not yet drained
	evs     []unix.EpollEvent
	seen    []*Conn // conns of the current batch of events
	pwait2  bool    // epoll_pwait2 works
	// stall is the watchdog's limit (0: StallLimit; negative: none).
	stall time.Duration

	// useRing is set on a thread whose connections go through io_uring
	// (NewRingThread); ring is open while Run runs. ops are the
	// connections' operations on it (guarded by mu), by id; kickBuf is
	// the eventfd's read, kickArmed while it is submitted.
	useRing   bool
	ringMu    sync.Mutex // guards ring's setting, for flushForeign
	ring      *ring
	ops       []*ringOp
	kickBuf   *[8]byte
	kickArmed bool
	// completions counts the ring's completions of the connections'
	// receives (the tests read it).
	completions int
}

// task is one worker: a coroutine, what it waits on, and its timer.
type task struct {
	// g identifies the task's coroutine (getg), set when it starts;
	// atomic because current reads it from any goroutine.
	g atomic.Uintptr
	// goid is the coroutine's goroutine id, for the watchdog's report.
	goid  atomic.Int64
	f     func()
	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool
	at    int64 // the instant it wakes at when in timers (now's clock)
	idx   int   // index in timers, -1 when not in it
	// sleeping is true while the task is in timers for a Sleep (not a
	// connection's deadline): Interrupt ends those waits.
	sleeping bool
	// queued is true while the task is in the thread's ready list.
	queued bool
	// done is set when the task returned; err when it panicked.
	done bool
	err  error
}

// stopSignal is what a stopped task panics with to unwind its worker
// (suspend); the task's coroutine recovers it.
type stopSignal struct{}

// NewThread returns a thread with no workers. Close releases it.
func NewThread() (*Thread, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("drive: epoll_create1: %w", err)
	}
	ev, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		_ = unix.Close(ep)
		return nil, fmt.Errorf("drive: eventfd: %w", err)
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, ev, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(ev)}); err != nil {
		_ = unix.Close(ep)
		_ = unix.Close(ev)
		return nil, fmt.Errorf("drive: epoll_ctl: %w", err)
	}
	return &Thread{ep: ep, ev: ev, conns: map[int32]*Conn{}, evs: make([]unix.EpollEvent, 256), pwait2: true}, nil
}

// Close releases the thread's epoll instance. Connections it adopted
// keep working (they wait with poll(2) from then on). Closing a thread
// while it runs ends the run: Run stops its workers and returns
// ErrClosed, and releases the epoll instance when its coroutines end.
func (t *Thread) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	for _, c := range t.conns {
		c.t.Store(nil)
	}
	t.conns = map[int32]*Conn{}
	if t.running {
		t.abort(ErrClosed)
		return nil
	}
	return t.closeFDs()
}

// closeFDs closes the epoll instance and the eventfd, with t.mu held.
func (t *Thread) closeFDs() error {
	t.evMu.Lock()
	defer t.evMu.Unlock()
	t.evClosed = true
	return errors.Join(unix.Close(t.ep), unix.Close(t.ev))
}

// abort makes the run end with err (the first reason counts): the thread
// stops its workers as soon as it runs.
func (t *Thread) abort(err error) {
	t.quit.CompareAndSwap(nil, &err)
	t.kick()
}

// Go adds a worker; Run runs f as one of the thread's coroutines.
func (t *Thread) Go(f func()) {
	t.tasks = append(t.tasks, &task{f: f, idx: -1})
}

// errGoexit is Run's error when a worker called runtime.Goexit, which
// ends the thread's goroutine too.
var errGoexit = errors.New("drive: a worker called runtime.Goexit, which ended its thread")

// Run runs the workers on a goroutine locked to its OS thread until every
// one has returned, and returns nil. It returns an error at once when the
// run cannot go on: a worker panicked (*PanicError) or held the thread
// for StallLimit without waiting on it (*StallError, which the watchdog
// reports while the worker still holds the thread), the thread was closed
// (ErrClosed), or its epoll instance failed. The thread's other workers
// are then stopped: each unwinds from its wait (its deferred calls run).
func (t *Thread) Run() error {
	t.mu.Lock()
	switch {
	case t.closed:
		t.mu.Unlock()
		return ErrClosed
	case t.ran:
		t.mu.Unlock()
		return errors.New("drive: Run called twice")
	}
	t.ran, t.running = true, true
	t.mu.Unlock()
	done := make(chan error, 1) // the coroutines may end after Run returned
	go func() {
		err := errGoexit // unless run returns
		defer func() { t.exit(); done <- err }()
		err = t.run()
	}()
	return t.watch(done)
}

// exit ends the run: the epoll instance is released if Close was called
// meanwhile.
func (t *Thread) exit() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.running = false
	if t.closed {
		_ = t.closeFDs()
	}
}

// run is Run's loop on the thread: it resumes the ready tasks, then waits
// for more.
func (t *Thread) run() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if t.useRing {
		if err := t.openRing(); err != nil {
			return err
		}
		defer t.closeRing()
	}
	for _, k := range t.tasks {
		k.next, k.stop = iter.Pull(func(yield func(struct{}) bool) {
			k.g.Store(getg())
			k.goid.Store(goid())
			k.yield = yield
			defer func() {
				if p := recover(); p != nil && p != any(stopSignal{}) {
					k.err = &PanicError{Value: p, Stack: string(debug.Stack())}
				}
			}()
			k.f()
		})
		t.enqueue(k)
	}
	live := len(t.tasks)
	for live > 0 {
		for i := 0; i < len(t.ready); i++ {
			k := t.ready[i]
			k.queued = false
			t.progress.Add(1)
			t.cur.Store(k)
			_, ok := k.next()
			t.cur.Store(nil)
			if !ok {
				k.done = true
				live--
				if k.err != nil {
					return t.unwind(k.err)
				}
			}
		}
		t.ready = t.ready[:0]
		if err := t.quit.Load(); err != nil {
			return t.unwind(*err)
		}
		if live > 0 {
			if err := t.poll(); err != nil {
				return t.unwind(err)
			}
		}
	}
	return nil
}

// unwind stops every task still running, each from its wait, and returns
// err: the reason the run ends.
func (t *Thread) unwind(err error) error {
	t.ready = t.ready[:0]
	for _, k := range t.tasks {
		if !k.done {
			t.cur.Store(k)
			k.stop()
			t.cur.Store(nil)
			k.done = true
		}
	}
	return err
}

// watch waits for the run's end (done) and, meanwhile, for a stall: one
// task current, without another resumed, for the stall limit. It reads
// the thread's progress a few times per limit: nothing on the thread's
// path but the counter.
func (t *Thread) watch(done <-chan error) error {
	limit := t.stall
	if limit == 0 {
		limit = StallLimit
	}
	if limit < 0 {
		return <-done
	}
	tick := time.NewTicker(limit / 4)
	defer tick.Stop()
	last, since := t.progress.Load(), time.Now()
	for {
		select {
		case err := <-done:
			return err
		case now := <-tick.C:
			p := t.progress.Load()
			k := t.cur.Load()
			if k == nil || p != last {
				last, since = p, now
				continue
			}
			if held := now.Sub(since); held >= limit {
				err := &StallError{For: held, Stack: stackOf(k.goid.Load())}
				t.abort(err) // the thread stops its workers when it runs again
				return err
			}
		}
	}
}

// goid returns the calling goroutine's id, from its stack's header.
func goid() int64 {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s = strings.TrimPrefix(s, "goroutine ")
	if i := strings.IndexByte(s, ' '); i > 0 {
		if id, err := strconv.ParseInt(s[:i], 10, 64); err == nil {
			return id
		}
	}
	return 0
}

// stackOf returns goroutine id's stack, as runtime.Stack shows it.
func stackOf(id int64) string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	head := fmt.Sprintf("goroutine %d [", id)
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.HasPrefix(g, head) {
			return g
		}
	}
	return fmt.Sprintf("goroutine %d: not found", id)
}

// Interrupt makes every Sleep on the thread return at once, from now on:
// the run is stopping. Waits for replies, and their deadlines, are not
// affected.
func (t *Thread) Interrupt() {
	t.stopped.Store(true)
	t.kick()
}

// kick wakes the thread's epoll_wait (once until it drains).
func (t *Thread) kick() {
	if t.kicked.Swap(true) {
		return
	}
	t.evMu.Lock()
	defer t.evMu.Unlock()
	if !t.evClosed {
		one := uint64(1)
		_, _ = unix.Write(t.ev, (*[8]byte)(unsafe.Pointer(&one))[:])
	}
}

// current returns the task running on this thread when the caller is
// one of its coroutines, else nil.
func (t *Thread) current() *task {
	if k := t.cur.Load(); k != nil && k.g.Load() == getg() {
		return k
	}
	return nil
}

// suspend yields the current task k to the thread until something makes
// it ready; at, when not 0, also wakes it then (sleeping: for a Sleep,
// which Interrupt ends). A task the thread stops (Run's unwind) does not
// return: it panics with stopSignal, which unwinds the worker to its
// coroutine's start.
func (t *Thread) suspend(k *task, at int64, sleeping bool) {
	if at != 0 {
		k.at, k.sleeping = at, sleeping
		heap.Push(&t.timers, k)
	}
	ok := k.yield(struct{}{})
	if k.idx >= 0 {
		heap.Remove(&t.timers, k.idx)
	}
	if !ok {
		panic(stopSignal{})
	}
}

// sleep is Sleep on the thread; handled is false when the caller is not
// one of its workers.
func (t *Thread) sleep(ctx context.Context, d time.Duration) (ok, handled bool) {
	k := t.current()
	if k == nil {
		return false, false
	}
	at := now() + int64(d)
	for {
		if t.stopped.Load() || ctx.Err() != nil {
			return false, true
		}
		if now() >= at {
			return true, true
		}
		t.suspend(k, at, true)
	}
}

// poll waits for sockets and timers and readies the tasks they wake. It
// blocks in the kernel without entering the Go scheduler. Its error (the
// epoll instance failed) ends the run.
func (t *Thread) poll() error {
	if !t.swept && t.stopped.Load() {
		t.swept = true
		if t.wakeSleepers() {
			return nil
		}
	}
	timeout := int64(-1)
	if len(t.timers) > 0 {
		timeout = max(t.timers[0].at-now(), 0)
	}
	if t.ring != nil {
		if err := t.ringPoll(timeout); err != nil {
			return err
		}
		t.wakeTimers()
		return nil
	}
	n, err := t.wait(timeout)
	if err != nil {
		return err
	}
	if n > 0 {
		t.mu.Lock()
		t.seen = t.seen[:0]
		for _, e := range t.evs[:n] {
			if int(e.Fd) == t.ev {
				continue
			}
			if c := t.conns[e.Fd]; c != nil {
				t.seen = append(t.seen, c)
				c.events.Or(e.Events)
			}
		}
		t.mu.Unlock()
		for _, e := range t.evs[:n] {
			if int(e.Fd) == t.ev {
				var buf [8]byte
				_, _ = unix.Read(t.ev, buf[:])
				t.kicked.Store(false)
				t.wakeExpired()
			}
		}
		for _, c := range t.seen {
			if k := c.waiter; k != nil && c.events.Load()&c.want != 0 {
				c.waiter = nil
				t.enqueue(k)
			}
		}
	}
	t.wakeTimers()
	return nil
}

// wakeTimers readies the tasks whose time has come.
func (t *Thread) wakeTimers() {
	n := now()
	for len(t.timers) > 0 && t.timers[0].at <= n {
		t.enqueue(heap.Pop(&t.timers).(*task))
	}
}

// wakeSleepers readies every task in a Sleep, once Interrupt was called
// (a Sleep after it does not wait), and tells whether there was one. The
// deadlines of connections stay.
func (t *Thread) wakeSleepers() bool {
	keep := t.timers[:0]
	woke := false
	for _, k := range t.timers {
		if k.sleeping {
			k.idx = -1
			t.enqueue(k)
			woke = true
		} else {
			k.idx = len(keep)
			keep = append(keep, k)
		}
	}
	clear(t.timers[len(keep):])
	t.timers = keep
	heap.Init(&t.timers)
	return woke
}

// wakeExpired readies the tasks waiting on a connection whose deadline
// has passed or that was closed (SetDeadline and Close kick the thread).
func (t *Thread) wakeExpired() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.conns {
		if k := c.waiter; k != nil && c.expiredOrClosed() {
			c.waiter = nil
			t.enqueue(k)
		}
	}
	for _, c := range t.closing {
		if k := c.waiter; k != nil {
			c.waiter = nil
			t.enqueue(k)
		}
	}
	t.closing = t.closing[:0]
}

// enqueue makes k ready to resume, once.
func (t *Thread) enqueue(k *task) {
	if !k.queued {
		k.queued = true
		t.ready = append(t.ready, k)
	}
}

// wait is epoll_pwait2 (epoll_wait where the kernel lacks it) with a
// timeout in ns (-1: none), made with RawSyscall: the Go scheduler does
// not see the thread block. A signal (the runtime's asynchronous
// preemption, which a stop of the world sends) ends it early with EINTR,
// which is an empty wait; any other error is the run's end. Without
// asynchronous preemption no signal comes, and the wait is a system call
// the scheduler sees (Syscall6), so that a stop of the world can proceed
// while the thread waits.
func (t *Thread) wait(timeout int64) (int, error) {
	var r uintptr
	var e unix.Errno
	if t.pwait2 {
		var ts *unix.Timespec
		var tv unix.Timespec
		if timeout >= 0 {
			tv = unix.NsecToTimespec(timeout)
			ts = &tv
		}
		if noAsyncPreempt {
			r, _, e = unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(t.ep), uintptr(unsafe.Pointer(&t.evs[0])), uintptr(len(t.evs)), uintptr(unsafe.Pointer(ts)), 0, 0)
		} else {
			r, _, e = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(t.ep), uintptr(unsafe.Pointer(&t.evs[0])), uintptr(len(t.evs)), uintptr(unsafe.Pointer(ts)), 0, 0)
		}
		if e == unix.ENOSYS {
			t.pwait2 = false
		}
	}
	if !t.pwait2 {
		ms := timeout
		if ms > 0 {
			ms = (timeout + 999_999) / 1_000_000
		}
		if noAsyncPreempt {
			r, _, e = unix.Syscall6(unix.SYS_EPOLL_PWAIT, uintptr(t.ep), uintptr(unsafe.Pointer(&t.evs[0])), uintptr(len(t.evs)), uintptr(ms), 0, 0)
		} else {
			r, _, e = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(t.ep), uintptr(unsafe.Pointer(&t.evs[0])), uintptr(len(t.evs)), uintptr(ms), 0, 0)
		}
	}
	switch e {
	case 0:
		return int(r), nil
	case unix.EINTR:
		return 0, nil
	}
	call := "epoll_pwait2"
	if !t.pwait2 {
		call = "epoll_pwait"
	}
	return 0, fmt.Errorf("drive: %s: %w", call, e)
}

// register adds c's socket to the thread's epoll instance.
func (t *Thread) register(c *Conn) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.useRing {
		t.newOps(c)
		t.conns[int32(c.fd)] = c
		return nil
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(c.fd)}
	if err := unix.EpollCtl(t.ep, unix.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
		return fmt.Errorf("drive: epoll_ctl: %w", err)
	}
	t.conns[int32(c.fd)] = c
	return nil
}

// unregister removes c, before its socket closes.
func (t *Thread) unregister(c *Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conns[int32(c.fd)] == c {
		delete(t.conns, int32(c.fd))
		if !t.useRing {
			_ = unix.EpollCtl(t.ep, unix.EPOLL_CTL_DEL, c.fd, nil)
		}
		t.closing = append(t.closing, c)
		t.kick()
	}
}

// timerHeap orders sleeping tasks by wake time.
type timerHeap []*task

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *timerHeap) Push(x any) {
	k := x.(*task)
	k.idx = len(*h)
	*h = append(*h, k)
}
func (h *timerHeap) Pop() any {
	old := *h
	k := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	k.idx = -1
	return k
}
