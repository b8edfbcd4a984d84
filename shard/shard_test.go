package shard_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/shard"
)

func catalog(t *testing.T, e engine.Engine) engine.Catalog {
	t.Helper()
	c, err := e.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.Catalog()
}

func TestParse(t *testing.T) {
	for in, want := range map[string][2]int{"0/1": {0, 1}, "2/3": {2, 3}, " 1 / 4 ": {1, 4}} {
		i, n, err := shard.Parse(in)
		if err != nil || i != want[0] || n != want[1] {
			t.Errorf("Parse(%q) = %d, %d, %v", in, i, n, err)
		}
	}
	for _, in := range []string{"3/3", "-1/2", "1", "a/b", "0/0", ""} {
		if _, _, err := shard.Parse(in); err == nil || !strings.Contains(err.Error(), "--shard") {
			t.Errorf("Parse(%q): %v, want an error naming --shard", in, err)
		}
	}
}

// Three shards at one barrier get the same start instant, ahead of the
// last registration by the lead; a barrier one shard never reaches fails
// naming it; a shard with other settings fails it naming the setting; a
// second process with a registered index is refused; a shard that failed
// stops the others' wait.
func TestBarrier(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.SQLite(t))
	specs := func(n int, run string) []*shard.Spec {
		s := make([]*shard.Spec, n)
		for i := range s {
			s[i] = &shard.Spec{Index: i, Count: n, Run: run, Timeout: 2 * time.Second, Poll: 10 * time.Millisecond, Lead: 300 * time.Millisecond}
		}
		return s
	}

	t.Run("fills", func(t *testing.T) {
		ss := specs(3, "fills")
		starts := make([]shard.Start, 3)
		errs := make([]error, 3)
		begin := time.Now()
		var wg sync.WaitGroup
		for i, s := range ss {
			cat := catalog(t, e)
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * 50 * time.Millisecond)
				starts[i], errs[i] = s.Arrive(ctx, cat, "run", "threads=4")
			}()
		}
		wg.Wait()
		for i := range ss {
			if errs[i] != nil {
				t.Fatalf("shard %d: %v", i, errs[i])
			}
			if !starts[i].Server.Equal(starts[0].Server) {
				t.Errorf("shard %d starts at %v, shard 0 at %v", i, starts[i].Server, starts[0].Server)
			}
			// The last registration plus the lead: between the first
			// Arrive and now, each plus the lead.
			if at := starts[i].At; at.Before(begin.Add(ss[i].Lead)) || at.After(time.Now().Add(ss[i].Lead)) {
				t.Errorf("shard %d: start %v, want the lead (%v) after a registration between %v and now", i, at, ss[i].Lead, begin)
			}
			if c := starts[i].Clock; c.Offset.Abs() > 5*time.Millisecond || c.Error > 5*time.Millisecond {
				t.Errorf("shard %d: an embedded engine's clock is the host's, got %+v", i, c)
			}
		}
	})

	t.Run("missing", func(t *testing.T) {
		ss := specs(3, "missing")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range 2 {
			cat := catalog(t, e)
			wg.Add(1)
			go func() { defer wg.Done(); _, errs[i] = ss[i*2].Arrive(ctx, cat, "run", "") }()
		}
		wg.Wait()
		for _, err := range errs {
			var ie *shard.IncompleteError
			if !errors.As(err, &ie) || len(ie.Missing) != 1 || ie.Missing[0] != 1 || !strings.Contains(err.Error(), "2 of 3 shards arrived") || !strings.Contains(err.Error(), "missing: 1") {
				t.Errorf("got %v, want shard 1 named missing", err)
			}
		}
	})

	t.Run("settings", func(t *testing.T) {
		ss := specs(2, "settings")
		cat0, cat1 := catalog(t, e), catalog(t, e)
		var err0 error
		done := make(chan struct{})
		go func() { defer close(done); _, err0 = ss[0].Arrive(ctx, cat0, "run", "threads=4\ntime=10s") }()
		_, err1 := ss[1].Arrive(ctx, cat1, "run", "threads=8\ntime=10s")
		<-done
		for _, err := range []error{err0, err1} {
			if err == nil || !strings.Contains(err.Error(), "threads=") || !strings.Contains(err.Error(), "same") {
				t.Errorf("got %v, want the differing setting named", err)
			}
		}
	})

	t.Run("twice", func(t *testing.T) {
		a, b := specs(2, "twice")[0], specs(2, "twice")[0]
		a.Timeout = 200 * time.Millisecond
		_, _ = a.Arrive(ctx, catalog(t, e), "run", "")
		_, err := b.Arrive(ctx, catalog(t, e), "run", "")
		if err == nil || !strings.Contains(err.Error(), "registered already") {
			t.Errorf("got %v, want the second shard 0 refused", err)
		}
	})

	t.Run("failed", func(t *testing.T) {
		ss := specs(2, "failed")
		ss[0].Timeout = time.Minute
		if err := ss[1].Fail(ctx, catalog(t, e), "cannot connect"); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err := ss[0].Arrive(ctx, catalog(t, e), "run", "")
		var fe *shard.FailedError
		if !errors.As(err, &fe) || fe.Shard != 1 || !strings.Contains(err.Error(), "cannot connect") || time.Since(start) > 10*time.Second {
			t.Errorf("got %v after %v, want shard 1's failure at once", err, time.Since(start))
		}
	})

	t.Run("alive", func(t *testing.T) {
		ss := specs(2, "alive")
		ss[0].Timeout, ss[1].Timeout = 300*time.Millisecond, 300*time.Millisecond
		stop, err := ss[1].Heartbeat(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		cat1 := catalog(t, e)
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(time.Second) // three timeouts: the heartbeat keeps shard 0 waiting
			stop()
			_, _ = ss[1].Arrive(ctx, cat1, "loaded", "")
		}()
		if _, err := ss[0].Arrive(ctx, catalog(t, e), "loaded", ""); err != nil {
			t.Errorf("shard 0 gave up on a shard that showed it ran: %v", err)
		}
		<-done // before the subtest's connections close
	})

	if n, err := shard.Remove(ctx, catalog(t, e), ""); err != nil || n == 0 {
		t.Errorf("Remove = %d, %v", n, err)
	}
}
