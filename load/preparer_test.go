package load_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
)

// A table another prepare is loading, whose process runs, is left alone:
// prepare and cleanup refuse it naming that process, run says it is being
// prepared. Once that process has ended (or the PID names a process
// started after the record), prepare loads it again.
func TestPrepareRefusesLivePreparer(t *testing.T) {
	ctx := context.Background()
	eng := enginetest.Open(t, testdb.SQLite(t))
	w := oltpWorkload(t, "--tables", "1", "--table-size", "100")
	c, err := eng.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cat := c.Catalog()
	host, _ := os.Hostname()
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()

	// The other prepare has recorded and created sbtest1.
	rec := engine.MetaRecord{Table: "sbtest1", Workload: "oltp_read_write", State: engine.StateLoading, Created: time.Now(),
		Preparer: fmt.Sprintf("%d@%s/0a0b0c", other.Process.Pid, host)}
	if err := cat.SetMeta(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateTable(ctx, w.Define().Tables(eng.Dialect())[0].Schema); err != nil {
		t.Fatal(err)
	}
	if rec.Identity, err = cat.Identity(ctx, "sbtest1"); err != nil {
		t.Fatal(err)
	}
	if err := cat.SetMeta(ctx, rec); err != nil {
		t.Fatal(err)
	}
	by := "being prepared by PID " + strconv.Itoa(other.Process.Pid)
	if _, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 1}); !errors.Is(err, load.ErrBeingPrepared) || !strings.Contains(err.Error(), by) {
		t.Errorf("Prepare = %v, want ErrBeingPrepared: %s", err, by)
	}
	if err := load.VerifyPrepared(ctx, c, eng.Dialect(), w); !errors.Is(err, load.ErrNotPrepared) || !strings.Contains(err.Error(), by) {
		t.Errorf("VerifyPrepared = %v, want ErrNotPrepared: %s", err, by)
	}
	if cleaned, err := load.Cleanup(ctx, eng, w); !errors.Is(err, load.ErrBeingPrepared) || len(cleaned.Dropped) > 0 {
		t.Errorf("Cleanup = %v, %v; want ErrBeingPrepared and nothing dropped", cleaned.Dropped, err)
	}
	if got, ok, err := cat.Meta(ctx, "sbtest1"); err != nil || !ok || got.Preparer != rec.Preparer {
		t.Errorf("the other prepare's record is %+v, %v, %v", got, ok, err)
	}
	if ok, err := cat.TableExists(ctx, "sbtest1"); err != nil || !ok {
		t.Errorf("the other prepare's sbtest1 is gone (%v)", err)
	}

	// On another host: prepare refuses it, cleanup (the way out when it
	// has ended there) drops it.
	rec.Preparer = fmt.Sprintf("%d@%s-elsewhere/0a0b0c", other.Process.Pid, host)
	if err := cat.SetMeta(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 1}); !errors.Is(err, load.ErrBeingPrepared) || !strings.Contains(err.Error(), "on host "+host+"-elsewhere") {
		t.Errorf("Prepare = %v, want ErrBeingPrepared on host %s-elsewhere", err, host)
	}
	if cleaned, err := load.Cleanup(ctx, eng, w); err != nil || len(cleaned.Dropped) != 1 {
		t.Errorf("Cleanup = %v, %v; want sbtest1 dropped", cleaned.Dropped, err)
	}
	if err := cat.SetMeta(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateTable(ctx, w.Define().Tables(eng.Dialect())[0].Schema); err != nil {
		t.Fatal(err)
	}
	if rec.Identity, err = cat.Identity(ctx, "sbtest1"); err != nil {
		t.Fatal(err)
	}

	// This process's PID, but recorded before it started: another
	// process had the PID.
	rec.Preparer, rec.Created = fmt.Sprintf("%d@%s/0a0b0c", os.Getpid(), host), time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := cat.SetMeta(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 1}); err != nil {
		t.Errorf("Prepare over the record of a process that ended: %v", err)
	}
	if err := load.VerifyPrepared(ctx, c, eng.Dialect(), w); err != nil {
		t.Errorf("VerifyPrepared after that prepare: %v", err)
	}
}

// Two prepares of the same workload at the same time: one prepares the
// tables, the other stops with ErrBeingPrepared (exit 4), naming the
// winner (or ErrAlreadyPrepared when the winner was done by the time it
// recorded a table), and leaves the winner's tables and records alone.
func TestConcurrentPrepare(t *testing.T) {
	for _, tc := range cleanupTargets {
		t.Run("engine="+tc.name, func(t *testing.T) {
			ctx := context.Background()
			target := tc.target(t)
			engs := [2]engine.Engine{enginetest.Open(t, target), enginetest.Open(t, target)}
			w := oltpWorkload(t, "--tables", "2", "--table-size", "100")
			for round := 0; round < 3; round++ {
				var errs [2]error
				var wg sync.WaitGroup
				for i := range engs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, errs[i] = load.Prepare(ctx, engs[i], oltpWorkload(t, "--tables", "2", "--table-size", "100"), load.PrepareConfig{LoadThreads: 1})
					}()
				}
				wg.Wait()
				won := 0
				for _, err := range errs {
					switch {
					case err == nil:
						won++
					case errors.Is(err, load.ErrAlreadyPrepared):
						// The other was done before this one looked:
						// SQLite's writers wait for each other, and on a
						// busy host one goroutine may start only after the
						// other's small load has finished.
					case !errors.Is(err, load.ErrBeingPrepared) || !strings.Contains(err.Error(), "being prepared"):
						t.Errorf("round %d: the prepare that lost: %v, want ErrBeingPrepared", round, err)
					}
				}
				if won != 1 {
					t.Fatalf("round %d: %d prepares succeeded (%v)", round, won, errs)
				}
				c, err := engs[0].Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				err = load.VerifyPrepared(ctx, c, engs[0].Dialect(), w)
				c.Close()
				if err != nil {
					t.Errorf("round %d: VerifyPrepared after the race: %v", round, err)
				}
				if cleaned, err := load.Cleanup(ctx, engs[0], w); err != nil || len(cleaned.Dropped) != 2 {
					t.Fatalf("round %d: Cleanup = %v, %v", round, cleaned.Dropped, err)
				}
			}
		})
	}
}
