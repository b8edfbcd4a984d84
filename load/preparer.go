package load

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbarena/dbarena/engine"
)

// A prepare records itself with every table it creates, while the table
// is loading (engine.MetaRecord.Preparer): "PID@host/token", its process,
// the host it runs on and a token of its own (two prepares of one process
// have the same PID). Another prepare, a cleanup or a run that finds a
// loading table looks whether its preparer still runs.

// busyHint is what to do about a table another prepare is at.
const busyHint = "wait for it, or stop it: a prepare stopped drops what it created"

// newPreparer is the Preparer of one prepare of this process.
func newPreparer() string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return fmt.Sprintf("%d@%s/%s", os.Getpid(), host, hex.EncodeToString(b[:]))
}

// parsePreparer splits a Preparer into its PID and host; ok is false for
// one that is no Preparer (empty: an older dbarena's record).
func parsePreparer(p string) (pid int, host string, ok bool) {
	head, _, _ := strings.Cut(p, "/")
	ps, host, found := strings.Cut(head, "@")
	pid, err := strconv.Atoi(ps)
	if !found || err != nil || pid <= 0 {
		return 0, "", false
	}
	return pid, host, true
}

// stillPreparing says, for the record of a loading table, by whom it is
// being prepared ("by PID 123 on this host since 15:04:05") when that
// prepare may still run: its process runs on this host and started before
// the record was made (here is true), or it ran on another host, which
// cannot be looked at from here. It is "" when the prepare has ended
// (killed, crashed) or the record names none.
func stillPreparing(rec engine.MetaRecord) (by string, here bool) {
	pid, host, ok := parsePreparer(rec.Preparer)
	if !ok {
		return "", false
	}
	since := ""
	if !rec.Created.IsZero() {
		since = " since " + rec.Created.Local().Format(time.DateTime)
	}
	if me, _ := os.Hostname(); host != me {
		return fmt.Sprintf("by PID %d on host %s%s (dbarena cannot look whether it still runs there; if it does not, dbarena cleanup drops what it left)", pid, host, since), false
	}
	if !processRuns(pid, rec.Created) {
		return "", false
	}
	return fmt.Sprintf("by PID %d on this host%s", pid, since), true
}

// processRuns tells whether process pid runs, and, where /proc tells when
// it started, started no later than notAfter (give or take the second of
// the record's resolution): a PID reused by a later process does not
// count.
func processRuns(pid int, notAfter time.Time) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !procMounted() // no /proc: the signal's answer is all there is
	}
	started, state, ok := procStart(b)
	if !ok {
		return true
	}
	if state == 'Z' || state == 'X' {
		return false
	}
	return notAfter.IsZero() || !started.After(notAfter.Add(time.Second))
}

// procMounted tells whether /proc describes processes here (Linux).
func procMounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// procStart reads a process's state and start time from its /proc/PID/stat
// line (start ticks at USER_HZ, 100 a second, after the boot time in
// /proc/stat); the command name may hold spaces and parentheses, so
// fields are counted from its closing parenthesis.
func procStart(stat []byte) (time.Time, byte, bool) {
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return time.Time{}, 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return time.Time{}, 0, false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return time.Time{}, 0, false
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			boot, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, 0, false
			}
			return time.Unix(boot, 0).Add(time.Duration(ticks) * time.Second / 100), f[0][0], true
		}
	}
	return time.Time{}, 0, false
}

// claim records rec, a table about to be created by the prepare
// rec.Preparer, unless there is a record of the table already
// (engine.Catalog.AddMeta): another prepare that started at the same
// time recorded it first, and the error wraps ErrBeingPrepared (or
// ErrAlreadyPrepared when that one is done).
func claim(ctx context.Context, cat engine.Catalog, rec engine.MetaRecord) error {
	for try := 1; ; try++ {
		added, err := cat.AddMeta(ctx, rec)
		switch {
		case added:
			return nil
		case err == nil:
			if busy := otherPreparer(ctx, cat, rec.Table, rec.Preparer); busy != nil {
				return busy
			}
			if got, ok, _ := cat.Meta(ctx, rec.Table); ok && got.State == stateReady {
				return &TableError{Table: rec.Table, Err: ErrAlreadyPrepared, Hint: "another prepare made it while this one started"}
			}
			return &TableError{Table: rec.Table, Err: ErrBeingPrepared, Hint: "another process recorded it while this prepare started"}
		case try == 3 || ctx.Err() != nil:
			// Two writers creating MetaTable at once may fail one.
			return fmt.Errorf("recording table %s: %w", rec.Table, err)
		}
	}
}

// otherPreparer is a *TableError wrapping ErrBeingPrepared when the
// record of table is that of a loading table of a prepare other than me,
// else nil.
func otherPreparer(ctx context.Context, cat engine.Catalog, table, me string) error {
	rec, ok, err := cat.Meta(ctx, table)
	if err != nil || !ok || rec.State != stateLoading || rec.Preparer == "" || rec.Preparer == me {
		return nil
	}
	by, _ := stillPreparing(rec)
	if by == "" {
		pid, host, _ := parsePreparer(rec.Preparer)
		by = fmt.Sprintf("by PID %d on host %s", pid, host)
	}
	return &TableError{Table: table, Err: fmt.Errorf("%w %s", ErrBeingPrepared, by), Hint: busyHint}
}
