// Command dbarena runs fair, reproducible database benchmarks.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/internal/cli"
	_ "github.com/dbarena/dbarena/server/all"
	_ "github.com/dbarena/dbarena/workload/all"
	_ "github.com/dbarena/dbarena/workload/all/mongo"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// stampedCommit, set at build time with -ldflags "-X main.stampedCommit=…"
// (make build does), names the commit where the toolchain stamped none
// (-buildvcs=false, a source tree without .git).
var stampedCommit string

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	st := cli.NewState(version, commit())
	code := cli.Main(ctx, st, os.Args[1:])
	stop()
	os.Exit(code)
}

// commit is the VCS revision stamped by the Go toolchain, else the one
// make build stamped, else "unknown".
func commit() string {
	if c := vcsCommit(); c != "unknown" || stampedCommit == "" {
		return c
	}
	return stampedCommit
}

// vcsCommit is the VCS revision the Go toolchain stamped, or "unknown".
func vcsCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "unknown", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
