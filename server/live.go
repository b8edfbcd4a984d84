package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// serving lists the processes that serve the server now, each once: the
// process dbarena started (its PID and start time recorded), the process
// the server's own PID file names (KindDef.PIDFile: after a restart from
// outside, a new one), those listening on its port (the recorded one,
// and the one the PID file names), and those running one of its
// programs in its directories (see working). A process found through the
// PID file or a port counts only when it belongs to the server (see
// belongs): a PID file outlives its process, and PIDs and ports are
// reused.
func (s *Server) serving(def *KindDef) []*process {
	var out []*process
	seen := map[int]bool{}
	add := func(p *process) {
		if p != nil && !seen[p.pid] && p.alive() {
			seen[p.pid] = true
			out = append(out, p)
		}
	}
	if s.proc.alive() {
		add(s.proc)
	}
	ports := []int{s.rec.Port}
	if pid, port, written := s.readPIDFile(def); pid > 0 {
		if s.belongs(pid, written) {
			add(liveProcess(pid))
		}
		if port > 0 && port != s.rec.Port {
			ports = append(ports, port)
		}
	}
	for _, port := range ports {
		for _, pid := range listeners(port) {
			if s.belongs(pid, time.Time{}) {
				add(liveProcess(pid))
			}
		}
	}
	for _, pid := range s.working() {
		add(liveProcess(pid))
	}
	return out
}

// working lists the processes that run one of the server's programs
// (from its recorded directory of programs) in its run or data
// directory: a server restarted from outside that has not written its
// PID file yet, and on another port, is among them.
func (s *Server) working() []int {
	bin := filepath.Clean(s.rec.BinDir)
	dirs := s.dirs()
	if s.rec.BinDir == "" || len(dirs) == 0 {
		return nil
	}
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err != nil || !withinAny(cwd, dirs) {
			continue
		}
		if exe, err := os.Readlink("/proc/" + e.Name() + "/exe"); err == nil && filepath.Dir(exe) == bin {
			pids = append(pids, pid)
		}
	}
	return pids
}

// dirs are the server's run and data directories, those it has. A
// directory that is not absolute or lies less than two levels below the
// root (a damaged record) is left out: it would take in processes of
// others.
func (s *Server) dirs() []string {
	var dirs []string
	for _, d := range []string{s.rec.RunDir, s.rec.DataDir} {
		d = filepath.Clean(d)
		if filepath.IsAbs(d) && strings.Count(d, string(filepath.Separator)) >= 2 {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// withinAny tells whether path is one of dirs or lies below one.
func withinAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if within(path, d) {
			return true
		}
	}
	return false
}

// readPIDFile reads the kind's PID file (KindDef.PIDFile): the PID on
// its first line, the port on line PIDFilePort, and when it was last
// written. A missing or unreadable file gives 0s.
func (s *Server) readPIDFile(def *KindDef) (pid, port int, written time.Time) {
	if def.PIDFile == nil {
		return 0, 0, time.Time{}
	}
	path := def.PIDFile(s)
	if path == "" {
		return 0, 0, time.Time{}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, 0, time.Time{}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, time.Time{}
	}
	lines := strings.Split(string(b), "\n")
	pid, _ = strconv.Atoi(strings.TrimSpace(lines[0]))
	if n := def.PIDFilePort; n > 0 && n <= len(lines) {
		port, _ = strconv.Atoi(strings.TrimSpace(lines[n-1]))
	}
	return pid, port, fi.ModTime()
}

// liveProcess is the running process pid with its start time, or nil.
func liveProcess(pid int) *process {
	t, err := startTicks(pid)
	if err != nil {
		return nil
	}
	return &process{pid: pid, ticks: t}
}

// belongs tells whether process pid is one of the server's: its working
// directory is in the server's run or data directory (PostgreSQL and
// MariaDB work in their data directories) or one of its arguments names
// a file there (PgBouncer's configuration). When notAfter is set (the
// time its PID file was written), the process must also have started by
// then (give or take a second of clock resolution): a PID reused by a
// later process does not count.
func (s *Server) belongs(pid int, notAfter time.Time) bool {
	if pid <= 0 || pid == os.Getpid() {
		return false
	}
	if !notAfter.IsZero() {
		started, ok := processStart(pid)
		if !ok || started.After(notAfter.Add(time.Second)) {
			return false
		}
	}
	dirs := s.dirs()
	if len(dirs) == 0 {
		return false
	}
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil && withinAny(cwd, dirs) {
		return true
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	for _, arg := range bytes.Split(cmdline, []byte{0}) {
		for _, d := range dirs {
			if i := bytes.Index(arg, []byte(d)); i >= 0 {
				rest := arg[i+len(d):]
				if len(rest) == 0 || rest[0] == '/' {
					return true
				}
			}
		}
	}
	return false
}

// within tells whether path is dir or lies below it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// processStart is when process pid started, from its start time in
// clock ticks since boot (USER_HZ, 100 per second on Linux) and the boot
// time in /proc/stat.
func processStart(pid int) (time.Time, bool) {
	ticks, err := startTicks(pid)
	if err != nil {
		return time.Time{}, false
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			boot, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(boot, 0).Add(time.Duration(ticks) * time.Second / 100), true
		}
	}
	return time.Time{}, false
}

// listeningSockets maps the link of every listening TCP socket (any
// address, IPv4 or IPv6) as a process's file descriptor shows it
// ("socket:[inode]") to its port, from /proc/net/tcp{,6}.
func listeningSockets() map[string]int {
	socks := map[string]int{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 32); ok && err == nil {
				socks["socket:["+fields[9]+"]"] = int(p)
			}
		}
	}
	return socks
}

// listeners are the processes with a TCP socket listening on port,
// found through the sockets' inodes and the processes' file
// descriptors. Processes whose descriptors this one may not read are not
// found.
func listeners(port int) []int {
	if port <= 0 {
		return nil
	}
	inodes := map[string]bool{}
	for l, p := range listeningSockets() {
		if p == port {
			inodes[l] = true
		}
	}
	if len(inodes) == 0 {
		return nil
	}
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir("/proc/" + e.Name() + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink("/proc/" + e.Name() + "/fd/" + fd.Name()); err == nil && inodes[l] {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// listenPorts are the TCP ports process pid listens on.
func listenPorts(pid int) []int {
	socks := listeningSockets()
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var ports []int
	for _, fd := range fds {
		if l, err := os.Readlink(dir + "/" + fd.Name()); err == nil {
			if p, ok := socks[l]; ok {
				ports = append(ports, p)
			}
		}
	}
	return ports
}

// rediscover looks for the process that serves the server now that the
// recorded one has ended: it was restarted from outside dbarena (pg_ctl
// restart, a kill and a start by hand), maybe on another port. The main
// process is the one the server's PID file names, else one listening on
// its port, else the first of those running its programs in its
// directories whose parent is not among them; each must belong to the
// server (see belongs). Its port is the one the PID file names, else the
// recorded one when it listens there, else the first it listens on. The
// record takes the process and port and is saved; found reports whether
// there was one.
func (s *Server) rediscover(def *KindDef) (found bool) {
	pid, port, written := s.readPIDFile(def)
	if pid > 0 && !s.belongs(pid, written) {
		pid, port = 0, 0
	}
	if pid <= 0 {
		for _, l := range listeners(s.rec.Port) {
			if s.belongs(l, time.Time{}) {
				pid = l
				break
			}
		}
	}
	if pid <= 0 {
		pid = rootOf(s.working())
	}
	p := liveProcess(pid)
	if pid <= 0 || p == nil || !p.alive() {
		return false
	}
	if port <= 0 {
		ports := listenPorts(pid)
		if !slices.Contains(ports, s.rec.Port) && len(ports) > 0 {
			port = ports[0]
		}
	}
	s.proc, s.rec.PID, s.rec.StartTicks = p, p.pid, p.ticks
	if port > 0 {
		s.rec.Port = port
	}
	_ = s.save() // another reader finds the process anew
	return true
}

// rootOf is the first of pids whose parent is not among them (the
// postmaster among its backends), or 0.
func rootOf(pids []int) int {
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil && !slices.Contains(pids, ppid) {
			return pid
		}
	}
	return 0
}

// stopServing stops every process that serves the server (see serving)
// with the kind's stop signal, SIGKILL after grace, and looks again until
// none is left and nothing of the server listens on its port. It fails,
// naming them, when processes are left after three rounds.
func (s *Server) stopServing(ctx context.Context, def *KindDef, grace time.Duration) error {
	for round := 0; ; round++ {
		procs := s.serving(def)
		if len(procs) == 0 {
			return nil
		}
		if round == 3 {
			pids := make([]string, len(procs))
			for i, p := range procs {
				pids[i] = strconv.Itoa(p.pid)
			}
			return fmt.Errorf("process %s still serves it (port %d)", strings.Join(pids, ", "), s.rec.Port)
		}
		for _, p := range procs {
			if err := p.stop(ctx, def.StopSignal, grace); err != nil {
				return err
			}
		}
	}
}
