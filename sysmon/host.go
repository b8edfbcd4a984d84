package sysmon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
)

// The sources that read /proc on the server's host.

var (
	_ Source = (*hostSource)(nil)
	_ Source = (*processSource)(nil)
	_ Source = (*diskSource)(nil)
	_ Source = (*clientSource)(nil)
	_ Source = engineSource{}
)

// hostSource reads the host's CPU time from /proc/stat.
type hostSource struct {
	proc fs.FS
}

func (h *hostSource) Name() string { return "host" }

func (h *hostSource) Sample(_ context.Context, s *Sample) error {
	b, err := fs.ReadFile(h.proc, "stat")
	if err != nil {
		return err
	}
	t, _, err := parseProcStat(b)
	if err != nil {
		return err
	}
	for i, v := range [...]uint64{t.user, t.nice, t.system, t.idle, t.iowait, t.irq, t.softirq, t.steal} {
		s.SetCounter(hostCPUFields[i], v)
	}
	if n := countCPUs(b); n > 0 {
		s.SetGauge(gHostCPUs, float64(n))
	}
	s.SetGauge(gServerHost, 1)
	return nil
}

// clientSource reads dbarena's own CPU time (/proc/self/stat: user and
// system time of all its threads) and this host's CPU time (/proc/stat),
// so that the work of other processes on the host (host_other_cpu_pct)
// and the hypervisor's steal are known whether or not the server is
// here.
type clientSource struct {
	proc fs.FS
	tick uint64 // clock ticks per second
	// serverLocal says that the server's CPU is on this host: the other
	// work is what is left after the server's process tree too.
	serverLocal bool
	buf         []byte
}

// newClientSource checks that proc has dbarena's own stat and the host's.
func newClientSource(proc fs.FS, tick int) (*clientSource, error) {
	if _, err := fs.ReadFile(proc, "self/stat"); err != nil {
		return nil, err
	}
	if _, err := fs.ReadFile(proc, "stat"); err != nil {
		return nil, err
	}
	return &clientSource{proc: proc, tick: uint64(tick)}, nil
}

func (c *clientSource) Name() string { return "client" }

// readSelfPID is dbarena's own pid as proc sees it, 0 when unknown.
func readSelfPID(proc fs.FS) (int, error) {
	b, err := fs.ReadFile(proc, "self/stat")
	if err != nil {
		return 0, err
	}
	st, err := parsePidStat(b)
	return st.pid, err
}

func (c *clientSource) Sample(_ context.Context, s *Sample) error {
	var err error
	c.buf, err = readSmall(c.proc, "self/stat", c.buf)
	if err != nil {
		return err
	}
	st, err := parsePidStat(c.buf)
	if err != nil {
		return err
	}
	c.buf, err = readSmall(c.proc, "stat", c.buf)
	if err != nil {
		return err
	}
	t, _, err := parseProcStat(c.buf)
	if err != nil {
		return err
	}
	s.SetCounter(cClientCPU, (st.utime+st.stime)*1_000_000/c.tick)
	for i, v := range [...]uint64{t.user, t.nice, t.system, t.idle, t.iowait, t.irq, t.softirq, t.steal} {
		s.SetCounter(hostCPUFields[i], v)
	}
	if n := countCPUs(c.buf); n > 0 {
		s.SetGauge(gHostCPUs, float64(n))
	}
	if c.serverLocal {
		s.SetGauge(gServerLocal, 1)
	}
	return nil
}

// processSource reads the CPU time of a process and all its descendants.
//
// It adds up utime+stime+cutime+cstime of every process in the tree: the
// children's fields hold the time of descendants that have exited and
// been waited for, so a backend that ends keeps its CPU time in the total
// (in its parent's cutime) instead of making it drop.
type processSource struct {
	proc fs.FS
	pid  int
	// start is the process's start time (ticks after boot) when the
	// source was made; another start time means another process.
	start uint64
	tick  uint64 // clock ticks per second
	// high is the highest total read; dips counts the samples that read
	// less (a process that exited between the reads of its parent and
	// its own: its time was in neither). The counter holds at high then,
	// so that the next sample does not count that time twice.
	high uint64
	dips int

	// Reused between samples.
	ppid  map[int]int
	ticks map[int]uint64
	queue []int
	buf   []byte
}

// newProcessSource checks that pid exists under proc.
func newProcessSource(proc fs.FS, pid, tick int) (*processSource, error) {
	st, err := readPidStat(proc, pid)
	if err != nil {
		return nil, err
	}
	return &processSource{proc: proc, pid: pid, start: st.start, tick: uint64(tick),
		ppid: map[int]int{}, ticks: map[int]uint64{}}, nil
}

func (p *processSource) Name() string { return "process" }

// errProcessGone reports that the monitored server process has exited or
// been replaced.
var errProcessGone = errors.New("server process is gone")

func (p *processSource) Sample(_ context.Context, s *Sample) error {
	root, err := readPidStat(p.proc, p.pid)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && (root.start != p.start || root.state == 'Z')) {
		return fmt.Errorf("pid %d: %w (restarted?)", p.pid, errProcessGone)
	}
	if err != nil {
		return err
	}
	entries, err := fs.ReadDir(p.proc, ".")
	if err != nil {
		return err
	}
	clear(p.ppid)
	clear(p.ticks)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == p.pid {
			continue
		}
		p.buf, err = readSmall(p.proc, e.Name()+"/stat", p.buf)
		if err != nil {
			continue // exited since the directory was read
		}
		st, err := parsePidStat(p.buf)
		if err != nil {
			continue
		}
		p.ppid[pid] = st.ppid
		p.ticks[pid] = st.utime + st.stime + st.cutime + st.cstime
	}
	// Children lists from the parent links, then a walk from the root.
	total := root.utime + root.stime + root.cutime + root.cstime
	n := 1
	p.queue = append(p.queue[:0], p.pid)
	children := make(map[int][]int, 8)
	for pid, pp := range p.ppid {
		children[pp] = append(children[pp], pid)
	}
	for len(p.queue) > 0 {
		cur := p.queue[0]
		p.queue = p.queue[1:]
		for _, c := range children[cur] {
			total += p.ticks[c]
			n++
			p.queue = append(p.queue, c)
		}
	}
	if total < p.high {
		total = p.high
		p.dips++
	}
	p.high = total
	s.SetCounter(cServerCPU, total*1_000_000/p.tick)
	s.SetGauge(gServerProcs, float64(n))
	return nil
}

// diskSource reads one block device's line of /proc/diskstats.
type diskSource struct {
	proc         fs.FS
	major, minor int
	name         string
	// provisioned is the IOPS the device was provisioned with
	// (Config.ProvisionedIOPS), 0 unknown.
	provisioned float64
}

func (d *diskSource) Name() string { return "disk" }

func (d *diskSource) Sample(_ context.Context, s *Sample) error {
	b, err := fs.ReadFile(d.proc, "diskstats")
	if err != nil {
		return err
	}
	disks, err := parseDiskstats(b)
	if err != nil {
		return err
	}
	for _, x := range disks {
		if x.major == d.major && x.minor == d.minor {
			s.SetCounter(cDiskReads, x.reads)
			s.SetCounter(cDiskWrites, x.writes)
			s.SetCounter(cDiskReadSectors, x.readSectors)
			s.SetCounter(cDiskWriteSectors, x.writeSectors)
			s.SetCounter(cDiskIOMS, x.ioMS)
			if d.provisioned > 0 {
				s.SetGauge(gDiskProvisionedIOPS, d.provisioned)
			}
			return nil
		}
	}
	return fmt.Errorf("device %s (%d:%d) is no longer in /proc/diskstats", d.name, d.major, d.minor)
}
