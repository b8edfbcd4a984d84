package drive

import (
	"errors"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// errNoAsyncPreempt is Unsupported's answer when the runtime started
// without asynchronous preemption.
var errNoAsyncPreempt = errors.New("GODEBUG asyncpreemptoff=1 (or gccheckmark) turns off the asynchronous preemption client threads rely on to let the garbage collector stop them")

// noAsyncPreempt is true when the runtime started without asynchronous
// preemption: a thread's wait in the kernel is then a system call the
// scheduler sees (see Thread.wait).
var noAsyncPreempt = asyncPreemptOff(defaultGODEBUG(), os.Getenv("GODEBUG"))

// Supported reports whether threads work on this system and are worth
// using: Unsupported returns nil.
func Supported() bool { return Unsupported() == nil }

// Unsupported says why threads should not run the workers here (Linux's
// epoll is missing, or the runtime runs without asynchronous preemption),
// or returns nil.
func Unsupported() error {
	if err := unsupported(); err != nil {
		return err
	}
	if noAsyncPreempt {
		return errNoAsyncPreempt
	}
	return nil
}

// defaultGODEBUG returns the GODEBUG settings built into the binary (its
// go.mod and //go:debug lines), which the environment's override.
func defaultGODEBUG() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "DefaultGODEBUG" {
				return s.Value
			}
		}
	}
	return ""
}

// asyncPreemptOff reads GODEBUG as the runtime does at start, the
// binary's defaults then the environment, each left to right, the last
// setting winning: asynchronous preemption is off under asyncpreemptoff
// other than 0, and under gccheckmark above 0.
func asyncPreemptOff(defaults, env string) bool {
	var off, checkmark int64
	for _, s := range []string{defaults, env} {
		for _, f := range strings.Split(s, ",") {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				continue
			}
			switch k {
			case "asyncpreemptoff":
				off = n
			case "gccheckmark":
				checkmark = n
			}
		}
	}
	return off != 0 || checkmark > 0
}
