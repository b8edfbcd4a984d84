package drive

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// echoServer answers every line it reads with the same line, and holds
// back lines that start with "hold" until release is closed.
func echoServer(t *testing.T) (addr string, release chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release = make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if len(line) >= 4 && line[:4] == "hold" {
						<-release
					}
					if _, err := io.WriteString(c, line); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), release
}

func dial(t *testing.T, ctx context.Context, addr string) net.Conn {
	t.Helper()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Adopt(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func newThread(t *testing.T) *Thread {
	t.Helper()
	th, err := newTestThread()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = th.Close() })
	return th
}

// roundTrip writes a line and reads the answer through r.
func roundTrip(c net.Conn, r *bufio.Reader, line string) (string, error) {
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	got, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	return got[:len(got)-1], nil
}

// Many workers on two threads each make many round trips on their own
// adopted connection: every answer is its own request's.
func TestWorkersShareThreads(t *testing.T) {
	addr, _ := echoServer(t)
	threads := []*Thread{newThread(t), newThread(t)}
	const workers, trips = 16, 300
	errs := make([]error, workers)
	done := make([]int, workers)
	for i := 0; i < workers; i++ {
		th := threads[i%len(threads)]
		ctx := WithThread(context.Background(), th)
		c := dial(t, ctx, addr)
		if _, ok := c.(*Conn); !ok {
			t.Fatalf("Adopt under a thread returned %T, want *Conn", c)
		}
		th.Go(func() {
			r := bufio.NewReader(c)
			for k := 0; k < trips; k++ {
				want := fmt.Sprintf("worker %d trip %d", i, k)
				got, err := roundTrip(c, r, want)
				if err != nil {
					errs[i] = err
					return
				}
				if got != want {
					errs[i] = fmt.Errorf("got %q, want %q", got, want)
					return
				}
				done[i]++
			}
		})
	}
	var wg sync.WaitGroup
	for _, th := range threads {
		wg.Add(1)
		go func() { defer wg.Done(); th.Run() }()
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil || done[i] != trips {
			t.Errorf("worker %d: %d round trips of %d, error %v", i, done[i], trips, errs[i])
		}
	}
	// Ring threads took their replies from the ring's completions, and
	// in fewer waits than replies; epoll threads have no ring.
	for i, th := range threads {
		if got, ring := th.completions, os.Getenv(ringEnv) != ""; ring != (got >= trips*workers/len(threads)) {
			t.Errorf("thread %d: %d ring completions for %d replies (ring threads: %v)", i, got, trips*workers/len(threads), ring)
		}
	}
}

// Without a thread in the context, Adopt leaves the connection to Go's
// netpoller.
func TestAdoptWithoutThread(t *testing.T) {
	addr, _ := echoServer(t)
	c := dial(t, context.Background(), addr)
	if _, ok := c.(*Conn); ok {
		t.Fatal("Adopt without a thread returned a *Conn")
	}
}

// An adopted connection works before its thread runs, and from another
// goroutine while it runs (poll(2) waits), as set-up and clean-up use it.
func TestConnOffThread(t *testing.T) {
	addr, _ := echoServer(t)
	th := newThread(t)
	ctx := WithThread(context.Background(), th)
	c := dial(t, ctx, addr)
	r := bufio.NewReader(c)
	if got, err := roundTrip(c, r, "before"); err != nil || got != "before" {
		t.Fatalf("before Run: %q, %v", got, err)
	}
	other := dial(t, ctx, addr)
	stop := make(chan struct{})
	th.Go(func() {
		// A worker that keeps the thread running and sleeping.
		for {
			select {
			case <-stop:
				return
			default:
			}
			Sleep(ctx, time.Millisecond)
		}
	})
	ran := make(chan struct{})
	go func() { th.Run(); close(ran) }()
	or := bufio.NewReader(other)
	for k := 0; k < 50; k++ {
		if got, err := roundTrip(other, or, "during"); err != nil || got != "during" {
			t.Fatalf("off the thread while it runs: %q, %v", got, err)
		}
	}
	close(stop)
	<-ran
	if got, err := roundTrip(c, r, "after"); err != nil || got != "after" {
		t.Fatalf("after Run: %q, %v", got, err)
	}
}

// A deadline set from another goroutine ends a worker's wait for a reply
// that does not come, with a timeout error, as pgconn's cancellation
// needs; the thread's other workers go on meanwhile.
func TestDeadlineEndsWait(t *testing.T) {
	addr, release := echoServer(t)
	defer close(release)
	th := newThread(t)
	ctx := WithThread(context.Background(), th)
	stuck := dial(t, ctx, addr)
	free := dial(t, ctx, addr)
	var stuckErr error
	trips := 0
	waiting := make(chan struct{})
	th.Go(func() {
		if _, err := io.WriteString(stuck, "hold\n"); err != nil {
			stuckErr = err
			return
		}
		close(waiting)
		_, stuckErr = bufio.NewReader(stuck).ReadString('\n')
	})
	th.Go(func() {
		r := bufio.NewReader(free)
		<-waiting // not a thread wait: the other worker runs first, up to its read
		for k := 0; k < 100; k++ {
			if _, err := roundTrip(free, r, "x"); err != nil {
				return
			}
			trips++
		}
		_ = stuck.SetReadDeadline(time.Now())
	})
	th.Run()
	var ne net.Error
	if !errors.As(stuckErr, &ne) || !ne.Timeout() || !errors.Is(stuckErr, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v, want a timeout", stuckErr)
	}
	if trips != 100 {
		t.Errorf("the other worker made %d round trips while one waited, want 100", trips)
	}
}

// Closing a connection from another goroutine ends a wait on it.
func TestCloseEndsWait(t *testing.T) {
	addr, release := echoServer(t)
	defer close(release)
	th := newThread(t)
	ctx := WithThread(context.Background(), th)
	c := dial(t, ctx, addr)
	var readErr error
	th.Go(func() {
		if _, err := io.WriteString(c, "hold\n"); err != nil {
			readErr = err
			return
		}
		go func() {
			time.Sleep(20 * time.Millisecond)
			_ = c.Close()
		}()
		_, readErr = c.Read(make([]byte, 16))
	})
	th.Run()
	if !errors.Is(readErr, net.ErrClosed) {
		t.Fatalf("read on a connection closed under it: %v, want net.ErrClosed", readErr)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after close: %v, want net.ErrClosed", err)
	}
}

// Sleep on a thread waits at least its duration, wakes sleepers in
// order of their instants, and Interrupt ends every sleep at once.
func TestSleep(t *testing.T) {
	th := newThread(t)
	ctx := WithThread(context.Background(), th)
	var mu sync.Mutex
	var order []int
	durs := []time.Duration{30 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}
	slept := make([]time.Duration, len(durs))
	due := make([]time.Time, len(durs))
	for i, d := range durs {
		th.Go(func() {
			start := time.Now()
			due[i] = start.Add(d)
			if !Sleep(ctx, d) {
				t.Errorf("sleep %d ended early", i)
			}
			slept[i] = time.Since(start)
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		})
	}
	th.Run()
	for i, d := range durs {
		if slept[i] < d {
			t.Errorf("sleep %d took %v, want at least %v", i, slept[i], d)
		}
	}
	for k := 1; k < len(order); k++ {
		if due[order[k]].Before(due[order[k-1]]) {
			t.Errorf("sleepers woke in order %v, not in the order of their instants %v", order, due)
		}
	}

	th2 := newThread(t)
	ctx2 := WithThread(context.Background(), th2)
	results := make([]bool, 4)
	for i := range results {
		th2.Go(func() { results[i] = Sleep(ctx2, time.Hour) })
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		th2.Interrupt()
	}()
	th2.Run() // returns only because Interrupt ended the hour-long sleeps
	for i, ok := range results {
		if ok {
			t.Errorf("sleep %d reported a full hour", i)
		}
	}
	cctx, cancel := context.WithCancel(ctx2)
	cancel()
	if Sleep(cctx, time.Hour) {
		t.Error("Sleep off the thread under a cancelled context reported a full hour")
	}
}

// A goroutine other than the worker reading the worker's connection
// while the worker is the thread's current one (pgconn's background
// reader does, during a slow write) waits with poll(2): only the
// worker's own coroutine ever yields to the thread.
func TestForeignReadWhileOwnerRuns(t *testing.T) {
	addr, release := echoServer(t)
	th := newThread(t)
	ctx := WithThread(context.Background(), th)
	c := dial(t, ctx, addr)
	var got string
	var readErr error
	time.AfterFunc(50*time.Millisecond, func() { close(release) }) // the reader waits for it
	th.Go(func() {
		if _, err := io.WriteString(c, "hold\n"); err != nil {
			readErr = err
			return
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			got, readErr = bufio.NewReader(c).ReadString('\n')
		}()
		<-done // the worker stays current, blocked, while the other goroutine reads
	})
	th.Run()
	if readErr != nil || got != "hold\n" {
		t.Fatalf("read from another goroutine: %q, %v", got, readErr)
	}
}

// Replies read a few bytes at a time, longer than the socket's buffer
// hands over at once: a read that fills its buffer leaves the rest to the
// next read, which must not wait for data already there.
func TestSmallReads(t *testing.T) {
	addr, _ := echoServer(t)
	th := newThread(t)
	ctx := WithThread(context.Background(), th)
	c := dial(t, ctx, addr)
	line := strings.Repeat("0123456789", 30_000) + "\n"
	var err error
	trips := 0
	th.Go(func() {
		buf := make([]byte, 7)
		for k := 0; k < 5; k++ {
			if _, err = io.WriteString(c, line); err != nil {
				return
			}
			var got strings.Builder
			for !strings.HasSuffix(got.String(), "\n") {
				var n int
				if n, err = c.Read(buf); err != nil {
					return
				}
				got.Write(buf[:n])
			}
			if got.String() != line {
				err = fmt.Errorf("trip %d: got %d bytes, want %d", k, got.Len(), len(line))
				return
			}
			trips++
		}
	})
	th.Run()
	if err != nil || trips != 5 {
		t.Fatalf("%d round trips of 300 KB read 7 bytes at a time: %v", trips, err)
	}
}
