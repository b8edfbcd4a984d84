package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/lockfile"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/shard"
	"github.com/dbarena/dbarena/threshold"
	"github.com/dbarena/dbarena/workload"
)

// exitCases are errors as the packages return them, each with the class
// it belongs to and its exit code.
var exitCases = []struct {
	class string
	err   error
	code  int
}{
	{"", nil, ExitOK},
	{"", errors.New("disk full"), ExitInternal},
	{"interrupted", fmt.Errorf("run: %w", runner.ErrInterrupted), ExitInterrupted},
	{"interrupted", fmt.Errorf("%w (1 of 4 runs done): %w", plan.ErrInterrupted, context.Canceled), ExitInterrupted},
	{"interrupted", &InterruptedError{Err: &engine.TargetError{Field: "host", Err: &engine.ConnectError{Msg: "cannot connect"}}}, ExitInterrupted},
	{"invalid plan", fmt.Errorf("%w: 3:10: want a number", plan.ErrInvalid), ExitUsage},
	{"invalid plan", plan.ErrDifferentPlan, ExitUsage},
	{"some plan runs failed", fmt.Errorf("plan: %w", plan.ErrRunsFailed), ExitRunFailed},
	{"usage", &UsageError{errors.New("--threads 0")}, ExitUsage},
	{"usage", &workload.OptionError{Flag: "tables", Value: "0", Err: "must be at least 1"}, ExitUsage},
	{"bad target or input", &engine.TargetError{Field: "port", Err: engine.ErrBadTarget}, ExitUsage},
	{"bad target or input", fmt.Errorf("%w %q", engine.ErrUnknownScheme, "oracle"), ExitUsage},
	{"bad target or input", fmt.Errorf("tpcc: %w", workload.ErrUnsupported), ExitUsage},
	{"bad target or input", engine.ErrNotSQL, ExitUsage},
	{"bad target or input", fmt.Errorf("%w: schema_version 9", result.ErrSchema), ExitUsage},
	{"bad target or input", fmt.Errorf("%w: workloads differ", result.ErrNotMergeable), ExitUsage},
	{"bad target or input", &result.DuplicateError{Files: [2]int{0, 1}, Shard: "run id 1"}, ExitUsage},
	{"bad target or input", fmt.Errorf("%w: r.json.journal has no header", result.ErrNoJournal), ExitUsage},
	{"bad target or input", fmt.Errorf("%w: line 9: a second header", result.ErrBadJournal), ExitUsage},
	{"bad target or input", fmt.Errorf("--out r.json: %w", &lockfile.HeldError{Path: "r.json.lock", PID: 12}), ExitUsage},
	{"bad managed server", fmt.Errorf("%w: port", server.ErrBadSpec), ExitUsage},
	{"bad managed server", server.ErrUnknownKind, ExitUsage},
	{"bad managed server", server.ErrKnob, ExitUsage},
	{"bad managed server", server.ErrNotFound, ExitUsage},
	{"bad managed server", server.ErrExists, ExitUsage},
	{"bad managed server", server.ErrPortInUse, ExitUsage},
	{"target unreachable", &engine.TargetError{Field: "host", Err: &engine.ConnectError{Msg: "cannot connect"}}, ExitTarget},
	{"target unreachable", &engine.ConnectError{Msg: "rejected", Auth: true}, ExitTarget},
	{"target unreachable", server.ErrNotInstalled, ExitTarget},
	{"target unreachable", server.ErrStart, ExitTarget},
	{"not prepared", &load.TableError{Table: "sbtest1", Err: load.ErrNotPrepared}, ExitSetup},
	{"not prepared", load.ErrAlreadyPrepared, ExitSetup},
	{"not prepared", &load.RolledBackError{Err: &load.TableError{Table: "sbtest1", Err: fmt.Errorf("%w by PID 7 on this host", load.ErrBeingPrepared)}}, ExitSetup},
	{"not prepared", load.ErrNotOurs, ExitSetup},
	{"not prepared", load.ErrShape, ExitSetup},
	{"threshold failed", fmt.Errorf("%w: p99<50ms", threshold.ErrFailed), ExitThreshold},
	{"threshold failed", &threshold.AbortError{Expr: "errors<5", Observed: 5, At: "3s"}, ExitThreshold},
	{"too many errors, or the server gone", fmt.Errorf("run: %w", runner.ErrTooManyErrors), ExitRunFailed},
	{"too many errors, or the server gone", fmt.Errorf("run: %w", runner.ErrServerGone), ExitRunFailed},
	{"too many errors, or the server gone", fmt.Errorf("run: %w: all 4 tries of the 2 queries failed", timing.ErrEveryTryFailed), ExitRunFailed},
	{"a shard missing or failed", &shard.IncompleteError{Run: "r1", Phase: "run 0", Count: 3, Missing: []int{1}, Timeout: time.Minute}, ExitRunFailed},
	{"a shard missing or failed", &shard.FailedError{Run: "r1", Phase: "run 0", Shard: 2, Reason: "cannot connect"}, ExitRunFailed},
	{"a shard missing or failed", fmt.Errorf("%w: run: 2 of 3 shards", ErrPartial), ExitRunFailed},
	{"bad target or input", fmt.Errorf("%w: target managed:postgres: a managed server", session.ErrNotShared), ExitUsage},
	{"stalled", fmt.Errorf("%w: 7 of 8 measured intervals had no transaction end", runner.ErrStalled), ExitStalled},
	{"check failed", fmt.Errorf("%w: 2 problems", ErrCheckFailed), ExitCheckFailed},
}

// Every class of the mapping gives its code, and every class is walked.
func TestExitCodes(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range exitCases {
		t.Run(fmt.Sprintf("%s/%v", tc.class, tc.err), func(t *testing.T) {
			if got := ExitCode(tc.err); got != tc.code {
				t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.code)
			}
		})
		seen[tc.class] = true
	}
	for _, c := range exitClasses {
		if !seen[c.name] {
			t.Errorf("class %q has no case in exitCases", c.name)
		}
	}
}

// An error returned after the context ended is an interruption, unless it
// is an outcome of its own.
func TestInterruption(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	driver := fmt.Errorf("loading sbtest1 batch 2: %w", errors.New("read tcp 127.0.0.1:1: i/o timeout"))
	connect := &engine.TargetError{Field: "host", Err: &engine.ConnectError{Msg: "cannot connect: context canceled"}}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		code int
	}{
		{"driver error, context live", context.Background(), driver, ExitInternal},
		{"driver error, context cancelled", cancelled, driver, ExitInterrupted},
		{"rolled back prepare, context cancelled", cancelled, &load.RolledBackError{Err: driver, Dropped: []string{"sbtest1"}}, ExitInterrupted},
		{"connect, context cancelled", cancelled, connect, ExitInterrupted},
		{"too many errors, context cancelled", cancelled, runner.ErrTooManyErrors, ExitInterrupted},
		{"usage error stays", cancelled, &UsageError{errors.New("--threads 0")}, ExitUsage},
		{"failed check stays", cancelled, ErrCheckFailed, ExitCheckFailed},
		{"not prepared stays", cancelled, load.ErrNotPrepared, ExitSetup},
		{"no error", cancelled, nil, ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := interruption(tc.ctx, tc.err)
			if got := ExitCode(err); got != tc.code {
				t.Errorf("exit %d (%v), want %d", got, err, tc.code)
			}
			if tc.code == ExitInterrupted && !strings.HasPrefix(err.Error(), "interrupted") {
				t.Errorf("message %q does not start with interrupted", err)
			}
			var rb *load.RolledBackError
			if errors.As(tc.err, &rb) && !strings.HasPrefix(err.Error(), "interrupted: rolled back: dropped sbtest1, which this prepare had created (it stopped at: loading sbtest1") {
				t.Errorf("message %q does not lead with what was rolled back", err)
			}
		})
	}
}

// README.md's exit-code table lists every code the mapping can return,
// and no other.
func TestREADMEListsExitCodes(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "### Exit codes")
	if !ok {
		t.Fatal("README.md has no \"### Exit codes\" section")
	}
	var listed []int
	row := regexp.MustCompile(`(?m)^\| *(\d+) *\|`)
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		n, _ := strconv.Atoi(m[1])
		listed = append(listed, n)
	}
	codes := []int{ExitOK, ExitInternal}
	for _, c := range exitClasses {
		if !slices.Contains(codes, c.code) {
			codes = append(codes, c.code)
		}
	}
	slices.Sort(codes)
	slices.Sort(listed)
	if !slices.Equal(listed, codes) {
		t.Errorf("README.md lists exit codes %v; the mapping returns %v", listed, codes)
	}
}
