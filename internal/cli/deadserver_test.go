package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/server"
)

// A managed server killed (SIGKILL) in the middle of `dbarena run` ends
// the run as failed, even with --tolerate-errors: its workers' lost
// connections cannot be replaced. The result file says so.
func TestRunOnKilledManagedServerFails(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"DBARENA_HOME": home}
	out := filepath.Join(t.TempDir(), "r.json")
	done := make(chan outcome)
	go func() {
		done <- dbarena(t, context.Background(), env, "run", "oltp_point_select", "--target", "managed:postgres?shared_buffers=16MB",
			"--threads", "2", "--time", "30s", "--table-size", "500", "--tolerate-errors", "--out", out)
	}()
	// Wait until the run is measuring: the server runs and its workers
	// have been at it for a while.
	var pid int
	for pid == 0 {
		select {
		case o := <-done:
			t.Fatalf("ended early: exit %d\n%s%s", o.code, o.stdout, o.stderr)
		default:
		}
		if list, _ := server.List(home); len(list) == 1 && list[0].Alive() && list[0].Version() != "" {
			pid = list[0].PID()
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(4 * time.Second) // preparing 500 rows takes less
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var o outcome
	select {
	case o = <-done:
	case <-time.After(25 * time.Second):
		t.Fatal("the run went on after its server was killed")
	}
	if o.code != cli.ExitRunFailed {
		t.Errorf("exit %d, want %d (run failed)\n%s%s", o.code, cli.ExitRunFailed, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, "not running any more") {
		t.Errorf("stderr does not say the server is gone:\n%s", o.stderr)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != result.StatusFailed || len(f.Runs) != 1 || f.Runs[0].Status != result.StatusFailed || f.Runs[0].Error == "" {
		t.Errorf("file status %s, runs %d, run status %s error %q; want failed", f.Status, len(f.Runs), f.Runs[0].Status, f.Runs[0].Error)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "servers")); len(ents) > 0 {
		t.Errorf("left behind: %v", ents)
	}
}
