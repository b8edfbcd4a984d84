package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// account is the operating-system user a server runs as.
type account struct {
	name     string
	uid, gid int
	// other is true when it is not the calling user: the server's
	// processes switch to it and its files are given to it.
	other bool
}

// caller is the user dbarena runs as.
func caller() account {
	a := account{uid: os.Geteuid(), gid: os.Getegid()}
	if u, err := user.LookupId(strconv.Itoa(a.uid)); err == nil {
		a.name = u.Username
	} else {
		a.name = strconv.Itoa(a.uid)
	}
	return a
}

// unprivileged is the user a server that refuses to run as root runs as
// (PostgreSQL and PgBouncer): as root it is name (KindDef.RootUser,
// "postgres"), created as a system user when missing (as
// scripts/testservers does); otherwise the caller.
func unprivileged(ctx context.Context, name string) (account, error) {
	me := caller()
	if me.uid != 0 {
		return me, nil
	}
	who := rootUserTitles(name)
	u, err := user.Lookup(name)
	if err != nil {
		useradd, lerr := LookPath("useradd", "")
		if lerr != nil {
			return account{}, fmt.Errorf("%s refuse to run as root, there is no user %s and no useradd to create it: %w", who, name, lerr)
		}
		out, aerr := exec.CommandContext(ctx, useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput()
		if u, err = user.Lookup(name); err != nil { // a concurrent useradd may have won
			return account{}, fmt.Errorf("creating system user %s (%s refuse to run as root): %v: %s", name, who, aerr, bytes.TrimSpace(out))
		}
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return account{}, fmt.Errorf("user %s has uid %q, gid %q: not numbers", name, u.Uid, u.Gid)
	}
	return account{name: name, uid: uid, gid: gid, other: true}, nil
}

// sysProcAttr starts a server's process in a session of its own (so that
// Ctrl-C at a terminal reaches dbarena only, and the server outlives a
// dbarena that exits) as user a.
func (a account) sysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setsid: true}
	if a.other {
		attr.Credential = &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid), Groups: []uint32{}}
	}
	return attr
}

// give hands paths to a (when a is not the caller).
func (a account) give(paths ...string) error {
	if !a.other {
		return nil
	}
	for _, p := range paths {
		if err := os.Lchown(p, a.uid, a.gid); err != nil {
			return err
		}
	}
	return nil
}

// canSearch tells whether a may walk the path down to dir (and into it):
// every directory on the way needs the search bit for a's uid, primary
// gid or others.
func (a account) canSearch(dir string) bool {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return false
		}
		mode := fi.Mode().Perm()
		var bit os.FileMode = 0o001
		switch {
		case a.uid == 0:
			return true // root may search any directory
		case int(st.Uid) == a.uid:
			bit = 0o100
		case int(st.Gid) == a.gid:
			bit = 0o010
		}
		if mode&bit == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

// LookPath finds a program in the directories of path (a PATH value),
// then in the sbin directories, which are not on every user's PATH.
func LookPath(name, path string) (string, error) {
	dirs := filepath.SplitList(path)
	dirs = append(dirs, "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if IsExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH or in the sbin directories", name)
}

// IsExecutable tells whether p is a regular file someone may execute.
func IsExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// childEnv is the environment of the server's programs: a plain PATH
// (binDir first) and the C locale, so that their messages are the English
// ones this package reads.
func childEnv(binDir string) []string {
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	if binDir != "" {
		path = binDir + ":" + path
	}
	return []string{"PATH=" + path, "LC_ALL=C", "LANG=C"}
}

// runSetup runs a set-up program (initdb, mariadb-install-db) to its end
// as user a, its output appended to logPath.
func runSetup(ctx context.Context, a account, dir, logPath string, env []string, prog string, args ...string) error {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "+ %s %s\n", prog, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, logf, logf
	cmd.SysProcAttr = a.sysProcAttr()
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(prog), err)
	}
	return nil
}

// process is a server's main process.
type process struct {
	pid   int
	ticks uint64 // start time in /proc/PID/stat: tells a reused PID apart
	// exited is closed once a process this dbarena started has ended and
	// been reaped; nil for a process of another dbarena.
	exited chan struct{}
}

// spawn starts a server program as user a in a session of its own, its
// output appended to logPath. The process outlives this one; while this
// one runs, a goroutine reaps it when it ends.
func spawn(a account, dir, logPath string, env []string, prog string, args ...string) (*process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own copy
	fmt.Fprintf(logf, "+ %s %s\n", prog, strings.Join(args, " "))
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, logf, logf
	cmd.SysProcAttr = a.sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(prog), err)
	}
	p := &process{pid: cmd.Process.Pid, exited: make(chan struct{})}
	p.ticks, _ = startTicks(p.pid)
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// alive tells whether the process still runs (a zombie does not: the PID 1
// of a container may never reap it).
func (p *process) alive() bool {
	if p == nil || p.pid <= 0 {
		return false
	}
	if p.exited != nil {
		select {
		case <-p.exited:
			return false
		default:
			return true
		}
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
	if err != nil {
		return false
	}
	state, ticks, ok := parseStat(b)
	return ok && state != 'Z' && state != 'X' && (p.ticks == 0 || ticks == p.ticks)
}

// startTicks reads a process's start time (clock ticks since boot).
func startTicks(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	_, ticks, ok := parseStat(b)
	if !ok {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return ticks, nil
}

// parseStat takes the state (field 3) and start time (field 22) from a
// /proc/PID/stat line; the command name (field 2) may hold spaces and
// parentheses, so fields are counted from its closing parenthesis.
func parseStat(b []byte) (state byte, ticks uint64, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, false
	}
	t, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], t, true
}

// stop ends the process: sig first (each server's clean, fast shutdown),
// SIGKILL to it and its process group after grace or when ctx ends. It
// then makes sure that none of its descendants (PostgreSQL's backends,
// which have sessions of their own) outlives it.
func (p *process) stop(ctx context.Context, sig syscall.Signal, grace time.Duration) error {
	if !p.alive() {
		// Gone already: its PID may name another process by now, so
		// nothing is signalled.
		return nil
	}
	kids := descendants(p.pid)
	_ = syscall.Kill(p.pid, sig)
	if !p.wait(ctx, grace) {
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
		if !p.wait(context.Background(), 10*time.Second) {
			return fmt.Errorf("process %d does not end, even after SIGKILL", p.pid)
		}
	}
	for _, k := range append(kids, descendants(p.pid)...) {
		if !k.wait(ctx, 5*time.Second) {
			_ = syscall.Kill(k.pid, syscall.SIGKILL)
			if !k.wait(context.Background(), 5*time.Second) {
				return fmt.Errorf("process %d, a child of %d, does not end, even after SIGKILL", k.pid, p.pid)
			}
		}
	}
	return nil
}

// descendants lists the live descendants of pid, with their start times.
func descendants(pid int) []*process {
	children := map[int][]*process{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		state, ticks, ok := parseStat(b)
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:]))
		if !ok || state == 'Z' || len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], &process{pid: n, ticks: ticks})
	}
	var out []*process
	queue := []int{pid}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// wait waits up to d (or until ctx ends) for the process to end.
func (p *process) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	if p.exited != nil {
		select {
		case <-p.exited:
			return true
		case <-t.C:
		case <-ctx.Done():
		}
		return !p.alive()
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for p.alive() {
		select {
		case <-tick.C:
		case <-t.C:
			return !p.alive()
		case <-ctx.Done():
			return !p.alive()
		}
	}
	return true
}

// freePort asks the kernel for a free port on 127.0.0.1.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// checkPort fails with ErrPortInUse when something listens on port.
func checkPort(port int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("%w: port %d on 127.0.0.1 is taken by another process (choose another, or none for a free one)", ErrPortInUse, port)
		}
		return fmt.Errorf("port %d: %w", port, err)
	}
	return ln.Close()
}

// tail returns the last n lines of a file, reading at most its last 256 KiB.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const max = 256 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		_, _ = f.Seek(fi.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
