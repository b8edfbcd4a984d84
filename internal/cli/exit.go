package cli

import (
	"context"
	"errors"

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

// Exit codes: distinct outcomes get distinct codes, so scripts can tell a
// failed check from a crash. README.md's table lists every one.
const (
	ExitOK          = 0
	ExitInternal    = 1   // anything unexpected: a bug, or the system (a full disk)
	ExitUsage       = 2   // bad command line, plan file or output path
	ExitTarget      = 3   // target unreachable, not the protocol expected, login refused, no such database
	ExitSetup       = 4   // not prepared, already prepared, being prepared by another, foreign or misshapen tables
	ExitRunFailed   = 5   // the run stopped on too many errors, or every try failed; a plan: some runs failed or stalled; a sharded run: a shard missing or failed
	ExitCheckFailed = 6   // consistency check found problems
	ExitThreshold   = 7   // a run's --threshold did not hold (after its result file was written)
	ExitStalled     = 8   // a run stalled: most of its measured intervals without a transaction ending
	ExitInterrupted = 130 // SIGINT or SIGTERM; what was written or rolled back is reported
)

// UsageError is a problem with the command line.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ErrCheckFailed is returned when check finds problems.
var ErrCheckFailed = errors.New("consistency check failed")

// InterruptedError is a command stopped by SIGINT or SIGTERM. Err is what
// the command returned, which says what it wrote, rolled back or left.
type InterruptedError struct{ Err error }

func (e *InterruptedError) Error() string {
	var rb *load.RolledBackError
	if errors.As(e.Err, &rb) {
		return "interrupted: rolled back: " + rb.Undone() + " (it stopped at: " + rb.Err.Error() + ")"
	}
	return "interrupted: " + e.Err.Error()
}

// Unwrap returns runner.ErrInterrupted and Err.
func (e *InterruptedError) Unwrap() []error { return []error{runner.ErrInterrupted, e.Err} }

// exitClass is one class of errors and its exit code.
type exitClass struct {
	name string
	code int
	is   func(error) bool
}

// isAny matches errors that wrap one of targets.
func isAny(targets ...error) func(error) bool {
	return func(err error) bool {
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
}

// exitClasses is the one mapping of errors to exit codes: the first class
// an error belongs to decides. An error of no class is ExitInternal.
var exitClasses = []exitClass{
	{"interrupted", ExitInterrupted, isAny(runner.ErrInterrupted, plan.ErrInterrupted)},
	{"invalid plan", ExitUsage, isAny(plan.ErrInvalid, plan.ErrDifferentPlan)},
	{"some plan runs failed", ExitRunFailed, isAny(plan.ErrRunsFailed)},
	{"usage", ExitUsage, func(err error) bool {
		var ue *UsageError
		var oe *workload.OptionError
		return errors.As(err, &ue) || errors.As(err, &oe)
	}},
	{"bad target or input", ExitUsage, isAny(engine.ErrBadTarget, engine.ErrUnknownScheme, workload.ErrUnsupported, engine.ErrNotSQL,
		result.ErrSchema, result.ErrNotMergeable, result.ErrNoJournal, result.ErrBadJournal, lockfile.ErrHeld, session.ErrNoDataDir, session.ErrNotShared)},
	{"bad managed server", ExitUsage, isAny(server.ErrBadSpec, server.ErrUnknownKind, server.ErrKnob, server.ErrNotFound,
		server.ErrExists, server.ErrPortInUse)},
	{"target unreachable", ExitTarget, isAny(engine.ErrConnect, engine.ErrAuth, server.ErrNotInstalled, server.ErrStart)},
	{"not prepared", ExitSetup, isAny(load.ErrNotPrepared, load.ErrAlreadyPrepared, load.ErrBeingPrepared, load.ErrNotOurs, load.ErrShape)},
	{"threshold failed", ExitThreshold, isAny(threshold.ErrFailed)},
	{"too many errors, or the server gone", ExitRunFailed, isAny(runner.ErrTooManyErrors, runner.ErrServerGone, timing.ErrEveryTryFailed)},
	{"a shard missing or failed", ExitRunFailed, isAny(shard.ErrIncomplete, shard.ErrShardFailed, ErrPartial)},
	{"stalled", ExitStalled, isAny(runner.ErrStalled)},
	{"check failed", ExitCheckFailed, isAny(ErrCheckFailed)},
}

// ExitCode maps an error to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	for _, c := range exitClasses {
		if c.is(err) {
			return c.code
		}
	}
	return ExitInternal
}

// interruption makes err an *InterruptedError when ctx ended (SIGINT,
// SIGTERM) before the command returned it, unless it is an outcome of its
// own (a usage error, a setup problem, a failed check): the driver errors
// a cancelled context causes ("i/o timeout", "context canceled", a closed
// connection) are an interruption, not a failure.
func interruption(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	switch ExitCode(err) {
	case ExitInternal, ExitTarget, ExitRunFailed:
		return &InterruptedError{Err: err}
	}
	return err
}
