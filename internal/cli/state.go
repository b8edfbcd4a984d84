// Package cli holds dbarena's commands. It wires flags to the packages that
// do the work and holds no benchmark logic itself. Nothing here reads
// process globals: output streams, environment, clock and signals come in
// through State, so the whole CLI can be driven from a test.
package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// State is everything the commands take from the process.
type State struct {
	Stdout, Stderr io.Writer
	// Getenv reads the environment (PGPASSWORD, MYSQL_PWD, DBARENA_HOME …).
	Getenv func(string) string
	// Now is the clock.
	Now func() time.Time
	// Terminal says whether Stdout is a terminal (progress bars) .
	Terminal bool
	// Version and Commit identify the build.
	Version, Commit string
}

// NewState returns the State of the running process.
func NewState(version, commit string) *State {
	return &State{
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Getenv:   os.Getenv,
		Now:      time.Now,
		Terminal: isTerminal(os.Stdout),
		Version:  version,
		Commit:   commit,
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// DataDir is where the embedded default target lives: $DBARENA_HOME, else
// $XDG_DATA_HOME/dbarena, else ~/.local/share/dbarena.
func (s *State) DataDir() (string, error) {
	if d := s.Getenv("DBARENA_HOME"); d != "" {
		return d, nil
	}
	if d := s.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "dbarena"), nil
	}
	home := s.Getenv("HOME")
	if home == "" {
		return "", errors.New("cannot find a data directory: set DBARENA_HOME or HOME")
	}
	return filepath.Join(home, ".local", "share", "dbarena"), nil
}

// Exit codes: distinct outcomes get distinct codes, so scripts can tell a
// failed check from a crash.
const (
	ExitOK          = 0
	ExitInternal    = 1   // anything unexpected
	ExitUsage       = 2   // bad command line: unknown workload, flag or value
	ExitTarget      = 3   // target unreachable, login refused
	ExitSetup       = 4   // not prepared, already prepared, foreign or misshapen tables
	ExitRunFailed   = 5   // the run stopped on too many errors
	ExitCheckFailed = 6   // consistency check found problems
	ExitInterrupted = 130 // Ctrl-C; results so far were written
)

// UsageError is a problem with the command line.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ErrCheckFailed is returned when check finds problems.
var ErrCheckFailed = errors.New("consistency check failed")

// ExitCode maps an error to the process exit code.
func ExitCode(err error) int {
	var ue *UsageError
	var oe *workload.OptionError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, runner.ErrInterrupted), errors.Is(err, plan.ErrInterrupted):
		return ExitInterrupted
	case errors.Is(err, plan.ErrInvalid), errors.Is(err, plan.ErrDifferentPlan):
		return ExitUsage
	case errors.Is(err, plan.ErrRunsFailed):
		return ExitRunFailed
	case errors.As(err, &ue), errors.As(err, &oe), errors.Is(err, engine.ErrBadTarget), errors.Is(err, engine.ErrUnknownScheme),
		errors.Is(err, workload.ErrUnsupported), errors.Is(err, engine.ErrNotSQL):
		return ExitUsage
	case errors.Is(err, engine.ErrConnect), errors.Is(err, engine.ErrAuth):
		return ExitTarget
	case errors.Is(err, runner.ErrNotPrepared), errors.Is(err, runner.ErrAlreadyPrepared),
		errors.Is(err, runner.ErrNotOurs), errors.Is(err, runner.ErrShape):
		return ExitSetup
	case errors.Is(err, runner.ErrTooManyErrors), errors.Is(err, runner.ErrServerGone):
		return ExitRunFailed
	case errors.Is(err, ErrCheckFailed):
		return ExitCheckFailed
	}
	return ExitInternal
}
