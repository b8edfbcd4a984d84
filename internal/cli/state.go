// Package cli holds dbarena's commands. It wires flags to the packages that
// do the work and holds no benchmark logic itself. Nothing here reads
// process globals: output streams, environment, clock and signals come in
// through State, so the whole CLI can be driven from a test.
package cli

import (
	"io"
	"os"
	"time"

	"github.com/dbarena/dbarena/session"
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
	// Quiet leaves progress out of Stdout: errors and a command's
	// summary only. Commands with progress set it from their --quiet.
	Quiet bool
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

// isTerminal reports whether f is a terminal progress bars can be drawn
// on: a character device that reports a width. One that reports 0
// columns (a pseudo-terminal whose size nobody set, as under script(1)
// or some CI runners) gets plain lines: a bar would draw nothing.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && terminalColumns(f) > 0
}

// DataDir is where the embedded default target lives: $DBARENA_HOME, else
// $XDG_DATA_HOME/dbarena, else ~/.local/share/dbarena (session.DataDir).
func (s *State) DataDir() (string, error) { return session.DataDir(s.Getenv) }

// env is what resolving a target takes from the process: the managed
// servers' lines go to standard error.
func (s *State) env() session.Env { return session.Env{Getenv: s.Getenv, Log: s.Stderr} }
