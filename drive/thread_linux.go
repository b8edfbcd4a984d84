package drive

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Supported reports whether threads work on this system.
func Supported() bool { return true }

// Thread is one OS thread running workers as coroutines (see the package
// documentation). Add workers with Go, then call Run once.
type Thread struct {
	ep, ev int // epoll instance; eventfd that wakes it

	mu    sync.Mutex // guards conns and closing, changed from any goroutine
	conns map[int32]*Conn
	// closing holds the conns closed since the thread last looked, whose
	// waiter must wake.
	closing []*Conn

	tasks  []*task
	ready  []*task
	timers timerHeap
	// cur is the task running, nil between tasks; read by any goroutine
	// (current), written by the thread.
	cur     atomic.Pointer[task]
	stopped atomic.Bool // Interrupt was called
	kicked  atomic.Bool // ev written and not yet drained
	evs     []unix.EpollEvent
	seen    []*Conn // conns of the current batch of events
	pwait2  bool    // epoll_pwait2 works
}

// task is one worker: a coroutine, what it waits on, and its timer.
type task struct {
	// g identifies the task's coroutine (getg), set when it starts;
	// atomic because current reads it from any goroutine.
	g     atomic.Uintptr
	f     func()
	next  func() (struct{}, bool)
	yield func(struct{}) bool
	at    int64 // Unix ns it wakes at when in timers
	idx   int   // index in timers, -1 when not in it
	// queued is true while the task is in the thread's ready list.
	queued bool
}

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
// keep working (they wait with poll(2) from then on).
func (t *Thread) Close() error {
	t.mu.Lock()
	for _, c := range t.conns {
		c.t.Store(nil)
	}
	t.conns = map[int32]*Conn{}
	t.mu.Unlock()
	return errors.Join(unix.Close(t.ep), unix.Close(t.ev))
}

// Go adds a worker; Run runs f as one of the thread's coroutines.
func (t *Thread) Go(f func()) {
	t.tasks = append(t.tasks, &task{f: f, idx: -1})
}

// Run runs the workers on the calling goroutine, locked to its OS thread,
// until every one has returned.
func (t *Thread) Run() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, k := range t.tasks {
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			k.g.Store(getg())
			k.yield = yield
			k.f()
		})
		defer stop()
		k.next = next
		t.enqueue(k)
	}
	live := len(t.tasks)
	for live > 0 {
		for i := 0; i < len(t.ready); i++ {
			k := t.ready[i]
			k.queued = false
			t.cur.Store(k)
			if _, ok := k.next(); !ok {
				live--
			}
			t.cur.Store(nil)
		}
		t.ready = t.ready[:0]
		if live > 0 {
			t.poll()
		}
	}
}

// Interrupt makes every Sleep on the thread return at once, from now on:
// the run is stopping. Waits for replies are not affected.
func (t *Thread) Interrupt() {
	t.stopped.Store(true)
	t.kick()
}

// kick wakes the thread's epoll_wait (once until it drains).
func (t *Thread) kick() {
	if t.kicked.Swap(true) {
		return
	}
	one := uint64(1)
	_, _ = unix.Write(t.ev, (*[8]byte)(unsafe.Pointer(&one))[:])
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
// it ready; at, when not 0, also wakes it then.
func (t *Thread) suspend(k *task, at int64) {
	if at != 0 {
		k.at = at
		heap.Push(&t.timers, k)
	}
	k.yield(struct{}{})
	if k.idx >= 0 {
		heap.Remove(&t.timers, k.idx)
	}
}

// sleep is Sleep on the thread; handled is false when the caller is not
// one of its workers.
func (t *Thread) sleep(ctx context.Context, d time.Duration) (ok, handled bool) {
	k := t.current()
	if k == nil {
		return false, false
	}
	at := time.Now().Add(d).UnixNano()
	for {
		if t.stopped.Load() || ctx.Err() != nil {
			return false, true
		}
		if time.Now().UnixNano() >= at {
			return true, true
		}
		t.suspend(k, at)
	}
}

// poll waits for sockets and timers and readies the tasks they wake. It
// blocks in the kernel without entering the Go scheduler.
func (t *Thread) poll() {
	timeout := int64(-1)
	if t.stopped.Load() && len(t.timers) > 0 {
		timeout = 0
	} else if len(t.timers) > 0 {
		timeout = max(t.timers[0].at-time.Now().UnixNano(), 0)
	}
	n := t.wait(timeout)
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
	now := time.Now().UnixNano()
	for len(t.timers) > 0 && (t.timers[0].at <= now || t.stopped.Load()) {
		t.enqueue(heap.Pop(&t.timers).(*task))
	}
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
// not see the thread block. A signal (the runtime's preemption) ends it
// early with EINTR, which is an empty wait.
func (t *Thread) wait(timeout int64) int {
	var r uintptr
	var e unix.Errno
	if t.pwait2 {
		var ts *unix.Timespec
		var tv unix.Timespec
		if timeout >= 0 {
			tv = unix.NsecToTimespec(timeout)
			ts = &tv
		}
		r, _, e = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(t.ep), uintptr(unsafe.Pointer(&t.evs[0])), uintptr(len(t.evs)), uintptr(unsafe.Pointer(ts)), 0, 0)
		if e == unix.ENOSYS {
			t.pwait2 = false
		}
	}
	if !t.pwait2 {
		ms := timeout
		if ms > 0 {
			ms = (timeout + 999_999) / 1_000_000
		}
		r, _, e = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(t.ep), uintptr(unsafe.Pointer(&t.evs[0])), uintptr(len(t.evs)), uintptr(ms), 0, 0)
	}
	if e != 0 {
		return 0
	}
	return int(r)
}

// register adds c's socket to the thread's epoll instance.
func (t *Thread) register(c *Conn) error {
	t.mu.Lock()
	defer t.mu.Unlock()
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
		_ = unix.EpollCtl(t.ep, unix.EPOLL_CTL_DEL, c.fd, nil)
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
