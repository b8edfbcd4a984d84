package drive

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hangLimit bounds every wait of these tests for a thread to end: a
// thread still running past it hangs.
const hangLimit = 10 * time.Second

// runWithin runs th on a goroutine and returns what Run returned, failing
// the test when Run does not return within hangLimit.
func runWithin(t *testing.T, th *Thread) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- th.Run() }()
	select {
	case err := <-done:
		return err
	case <-time.After(hangLimit):
		t.Fatalf("the thread did not end within %v", hangLimit)
		return nil
	}
}

// A garbage collection's stop of the world reaches a thread whatever it
// waits on: workers making round trips and sleeping while another
// goroutine collects in a loop all finish.
func TestGCDuringRun(t *testing.T) {
	addr, _ := echoServer(t)
	th := newThread(t)
	ctx := WithThread(context.Background(), th)
	stop := make(chan struct{})
	var collected sync.WaitGroup
	collected.Add(1)
	go func() {
		defer collected.Done()
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer func() { close(stop); collected.Wait() }()
	var trips atomic.Int64
	for range 4 {
		c := dial(t, ctx, addr)
		th.Go(func() {
			r := bufio.NewReader(c)
			for range 50 {
				if _, err := roundTrip(c, r, "gc"); err != nil {
					t.Error(err)
					return
				}
				trips.Add(1)
				Sleep(ctx, time.Millisecond)
			}
		})
	}
	// A worker that only sleeps, long: the thread waits in the kernel
	// with nothing else to wake it.
	th.Go(func() { Sleep(ctx, 300*time.Millisecond) })
	if err := runWithin(t, th); err != nil {
		t.Fatal(err)
	}
	if n := trips.Load(); n != 200 {
		t.Errorf("%d round trips, want 200", n)
	}
}

// With asynchronous preemption off (GODEBUG=asyncpreemptoff=1) no signal
// ends a thread's wait in the kernel, yet the garbage collector's stop of
// the world still reaches it: the test binary, run again with the
// setting, passes TestGCDuringRun.
func TestGCWithoutAsyncPreemption(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*hangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestGCDuringRun$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("TestGCDuringRun under GODEBUG=asyncpreemptoff=1 hung (killed after %v):\n%s", 2*hangLimit, out)
	}
	if err != nil {
		t.Fatalf("TestGCDuringRun under GODEBUG=asyncpreemptoff=1: %v\n%s", err, out)
	}
}

// testStall is the watchdog's limit in these tests.
const testStall = 300 * time.Millisecond

// wantStall checks that err is a stall reported with the stuck worker's
// stack, which shows the call it is stuck in.
func wantStall(t *testing.T, err error, in string) {
	t.Helper()
	var se *StallError
	if !errors.As(err, &se) {
		t.Fatalf("Run: %v, want a *StallError", err)
	}
	if se.For < testStall {
		t.Errorf("stall reported after %v, before the limit %v", se.For, testStall)
	}
	if !strings.Contains(se.Stack, in) || !strings.Contains(se.Stack, "drive.Test") {
		t.Errorf("the stall's stack does not show the worker stuck in %s:\n%s", in, se.Stack)
	}
}

// A worker that blocks its goroutine (here on a lock another worker of
// the same thread holds across a query) stops the whole thread: the
// watchdog turns it into an error that shows where the worker is stuck.
// Once the lock is free again, the thread stops its workers and ends.
func TestBlockedWorkerIsReported(t *testing.T) {
	addr, release := echoServer(t)
	defer close(release)
	th := newThread(t)
	th.stall = testStall
	ctx := WithThread(context.Background(), th)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 2 {
		c := dial(t, ctx, addr)
		wg.Add(1)
		th.Go(func() {
			defer wg.Done()
			r := bufio.NewReader(c)
			for range 10 {
				// The second worker blocks here, holding the thread,
				// while the first waits for a query that takes long.
				mu.Lock()
				_, err := roundTrip(c, r, "hold")
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wantStall(t, runWithin(t, th), "sync.(*Mutex).Lock")
	// The first worker, suspended in its query, still holds the lock.
	mu.Unlock()
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(hangLimit):
		t.Fatal("the stalled thread's workers did not end once it could run")
	}
}

// A worker calling time.Sleep holds its thread: the watchdog reports it
// with the sleeping worker's stack.
func TestSleepingWorkerIsReported(t *testing.T) {
	th := newThread(t)
	th.stall = testStall
	th.Go(func() { time.Sleep(4 * testStall) })
	wantStall(t, runWithin(t, th), "time.Sleep")
}

// A worker's panic ends the thread's run at once as an error, however
// long its other workers would run: they are stopped.
func TestWorkerPanicEndsRun(t *testing.T) {
	addr, release := echoServer(t)
	defer close(release)
	th := newThread(t)
	ctx := WithThread(context.Background(), th)
	c := dial(t, ctx, addr)
	held := dial(t, ctx, addr)
	th.Go(func() { Sleep(ctx, time.Hour) })
	th.Go(func() {
		if _, err := io.WriteString(held, "hold\n"); err != nil {
			return
		}
		_, _ = held.Read(make([]byte, 8)) // no reply comes
	})
	th.Go(func() {
		if _, err := roundTrip(c, bufio.NewReader(c), "x"); err != nil {
			t.Error(err)
		}
		panic("worker bug")
	})
	var pe *PanicError
	if err := runWithin(t, th); !errors.As(err, &pe) || pe.Value != "worker bug" || !strings.Contains(pe.Stack, "TestWorkerPanicEndsRun") {
		t.Fatalf("Run: %v, want the worker's panic with its stack", err)
	}
}

// Closing a thread while it runs ends the run with an error, at once,
// rather than leaving it to spin on a closed epoll instance or to wait
// for replies that no longer wake it.
func TestCloseDuringRun(t *testing.T) {
	addr, release := echoServer(t)
	defer close(release)
	th := newThread(t)
	ctx := WithThread(context.Background(), th)
	held := dial(t, ctx, addr)
	th.Go(func() { Sleep(ctx, time.Hour) })
	th.Go(func() {
		if _, err := io.WriteString(held, "hold\n"); err != nil {
			return
		}
		_, _ = held.Read(make([]byte, 8))
	})
	time.AfterFunc(50*time.Millisecond, func() { _ = th.Close() })
	if err := runWithin(t, th); !errors.Is(err, ErrClosed) {
		t.Fatalf("Run: %v, want ErrClosed", err)
	}
	if err := th.Run(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Run after Close: %v, want ErrClosed", err)
	}
}

// Interrupt ends sleeps, not the deadline of a wait for a reply: the
// wait still ends at its deadline, with a timeout, and the worker is not
// woken over and over meanwhile.
func TestInterruptKeepsDeadlines(t *testing.T) {
	addr, release := echoServer(t)
	defer close(release)
	th := newThread(t)
	ctx := WithThread(context.Background(), th)
	held := dial(t, ctx, addr)
	const wait = 300 * time.Millisecond
	var readErr error
	var waited time.Duration
	th.Go(func() {
		if _, err := io.WriteString(held, "hold\n"); err != nil {
			readErr = err
			return
		}
		th.Interrupt()
		start := time.Now()
		_ = held.SetReadDeadline(start.Add(wait))
		_, readErr = held.Read(make([]byte, 8))
		waited = time.Since(start)
	})
	if err := runWithin(t, th); err != nil {
		t.Fatal(err)
	}
	var ne net.Error
	if !errors.As(readErr, &ne) || !ne.Timeout() {
		t.Fatalf("read past its deadline after Interrupt: %v, want a timeout", readErr)
	}
	if waited < wait {
		t.Errorf("the read ended after %v, before its deadline (%v)", waited, wait)
	}
	if n := th.progress.Load(); n > 10 {
		t.Errorf("the worker was resumed %d times while it waited for one deadline", n)
	}
}

// GODEBUG is read as the runtime reads it: the binary's defaults, then
// the environment, the last setting winning.
func TestAsyncPreemptOff(t *testing.T) {
	for _, c := range []struct {
		defaults, env string
		want          bool
	}{
		{"", "", false},
		{"", "asyncpreemptoff=1", true},
		{"", "gctrace=1,asyncpreemptoff=1,madvdontneed=1", true},
		{"", "asyncpreemptoff=0", false},
		{"", "asyncpreemptoff=1,asyncpreemptoff=0", false},
		{"asyncpreemptoff=1", "", true},
		{"asyncpreemptoff=1", "asyncpreemptoff=0", false},
		{"", "gccheckmark=1", true},
		{"", "asyncpreemptoff=x", false},
	} {
		if got := asyncPreemptOff(c.defaults, c.env); got != c.want {
			t.Errorf("defaults %q, GODEBUG %q: async preemption off %v, want %v", c.defaults, c.env, got, c.want)
		}
	}
	if noAsyncPreempt != asyncPreemptOff(defaultGODEBUG(), os.Getenv("GODEBUG")) {
		t.Error("noAsyncPreempt does not follow GODEBUG")
	}
	if err := Unsupported(); (err != nil) != noAsyncPreempt || Supported() == noAsyncPreempt {
		t.Errorf("Unsupported %v, Supported %v, with async preemption off %v", err, Supported(), noAsyncPreempt)
	}
}
