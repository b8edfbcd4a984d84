package sysmon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/engine"
)

// Finding the server's processes, data directory and block device on this
// host.

// startSlack is how far a process's start time (from /proc, in whole
// seconds of boot time plus clock ticks) may be from the start time the
// server reports before they are taken for different processes.
const startSlack = 2.0

// clockDrift is how far, as a share of a process's age, the wall clock
// the server's start time is read on may have moved against the boot
// clock /proc counts its start in: NTP slews at most 0.05 %, and a
// virtual machine's wall clock was seen running 0.5 % fast, which put a
// server started 80 minutes earlier 25 s "after" its own start.
const clockDrift = 0.01

// slack is how far st's start may be from the server's: startSlack, and
// the drift of the clocks over the process's age.
func (e procEnv) slack(st pidStat) float64 {
	age := e.uptime - float64(st.start)/float64(e.tick)
	return startSlack + clockDrift*max(age, 0)
}

// startEpoch is when a process started, in seconds since the epoch.
func startEpoch(st pidStat, btime int64, tick int) float64 {
	return float64(btime) + float64(st.start)/float64(tick)
}

// procEnv is what the pid checks need from /proc.
type procEnv struct {
	proc  fs.FS
	btime int64 // boot time, seconds since the epoch
	// uptime is the boot clock's reading (/proc/uptime) when the
	// checks began, 0 when unknown.
	uptime float64
	tick   int // clock ticks per second
}

// parentPID finds the server's main process from one of its processes
// (a backend): the process must be on this host and run one of names, its
// parent too, and the parent must not have started after the server says
// it did (a pid in another pid namespace names some other process).
func (e procEnv) parentPID(child int, names []string, serverStart float64) (int, error) {
	b, err := readPidStat(e.proc, child)
	if err != nil {
		return 0, fmt.Errorf("backend pid %d is not a process on this host (%w)", child, err)
	}
	if !slices.Contains(names, b.comm) {
		return 0, fmt.Errorf("backend pid %d is %q on this host, not %s (another pid namespace?)", child, b.comm, strings.Join(names, " or "))
	}
	p, err := readPidStat(e.proc, b.ppid)
	if err != nil {
		return 0, fmt.Errorf("parent %d of backend %d: %w", b.ppid, child, err)
	}
	if !slices.Contains(names, p.comm) {
		return 0, fmt.Errorf("parent %d of backend %d is %q, not %s", b.ppid, child, p.comm, strings.Join(names, " or "))
	}
	if err := e.checkStart(p, serverStart); err != nil {
		return 0, err
	}
	return p.pid, nil
}

// checkStart fails when st started after the server's reported start: it
// is not the server's process.
func (e procEnv) checkStart(st pidStat, serverStart float64) error {
	if serverStart <= 0 || e.btime <= 0 {
		return nil
	}
	if ps := startEpoch(st, e.btime, e.tick); ps > serverStart+e.slack(st) {
		return fmt.Errorf("pid %d (%s) started %.0f s after the server did: another process", st.pid, st.comm, ps-serverStart)
	}
	return nil
}

// checkPID checks a pid the server gave (in its pid file): a process of
// this host running one of names, not started after the server.
func (e procEnv) checkPID(pid int, names []string, serverStart float64) (int, error) {
	st, err := readPidStat(e.proc, pid)
	if err != nil {
		return 0, fmt.Errorf("pid %d is not a process on this host (%w)", pid, err)
	}
	if !slices.Contains(names, st.comm) {
		return 0, fmt.Errorf("pid %d is %q on this host, not %s", pid, st.comm, strings.Join(names, " or "))
	}
	if err := e.checkStart(st, serverStart); err != nil {
		return 0, err
	}
	return pid, nil
}

// findPID looks through every process for the one running one of names
// that started when the server says it did, for when the server's pid
// file cannot be read.
func (e procEnv) findPID(names []string, serverStart float64) (int, error) {
	if serverStart <= 0 || e.btime <= 0 {
		return 0, errors.New("the server's start time is unknown")
	}
	entries, err := fs.ReadDir(e.proc, ".")
	if err != nil {
		return 0, err
	}
	var found []int
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		st, err := readPidStat(e.proc, pid)
		if err != nil || !slices.Contains(names, st.comm) {
			continue
		}
		if ps, slack := startEpoch(st, e.btime, e.tick), e.slack(st); ps >= serverStart-slack-1 && ps <= serverStart+slack {
			found = append(found, pid)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return 0, fmt.Errorf("no %s process on this host started when the server did", strings.Join(names, " or "))
	default:
		return 0, fmt.Errorf("%d %s processes started when the server did: %v", len(found), strings.Join(names, "/"), found)
	}
}

// locate finds the server's main process as loc describes it: the parent
// of loc.ParentOf, else the pid in loc.PIDFile (a file of this host),
// else by start time among the processes of loc.Names.
func (e procEnv) locate(loc engine.ProcessLocator) (int, error) {
	if loc.ParentOf > 0 {
		return e.parentPID(loc.ParentOf, loc.Names, loc.Start)
	}
	b, err := os.ReadFile(loc.PIDFile)
	if err == nil {
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if perr != nil {
			return 0, fmt.Errorf("pid file %s: %v", loc.PIDFile, perr)
		}
		return e.checkPID(pid, loc.Names, loc.Start)
	}
	pid, ferr := e.findPID(loc.Names, loc.Start)
	if ferr != nil {
		return 0, fmt.Errorf("pid file %q: %v; %v", loc.PIDFile, err, ferr)
	}
	return pid, nil
}

// dataDirFromCmdline returns the argument of flag ("-D") on the command
// line of process pid ("-D dir" or "-Ddir"), or "".
func dataDirFromCmdline(proc fs.FS, pid int, flag string) string {
	if flag == "" {
		return ""
	}
	b, err := fs.ReadFile(proc, strconv.Itoa(pid)+"/cmdline")
	if err != nil {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
		if d, ok := strings.CutPrefix(a, flag); ok && d != "" {
			return d
		}
	}
	return ""
}

// device is the data directory's mount and, when it has one, its block
// device's line in /proc/diskstats.
type device struct {
	mount
	disk *diskStat
}

// findDevice maps dir (absolute) to its mount in the mountinfo file (a path
// under proc) and the mount to its block device in diskstats: by the
// mount's major:minor (a partition or device-mapper volume has its own
// line), else, for file systems with anonymous device numbers (btrfs), by
// the name of the mount's source device. A mount with no block device
// (overlay, tmpfs, NFS, ZFS) gives a device without disk and an error
// that says so.
func findDevice(proc fs.FS, mountinfo, dir string) (device, error) {
	b, err := fs.ReadFile(proc, mountinfo)
	if err != nil {
		return device{}, err
	}
	mounts, err := parseMountinfo(b)
	if err != nil {
		return device{}, err
	}
	m, ok := mountOf(mounts, path.Clean(dir))
	if !ok {
		return device{}, fmt.Errorf("no mount holds %s in %s", dir, mountinfo)
	}
	dev := device{mount: m}
	b, err = fs.ReadFile(proc, "diskstats")
	if err != nil {
		return dev, err
	}
	disks, err := parseDiskstats(b)
	if err != nil {
		return dev, err
	}
	for i := range disks {
		if disks[i].major == m.major && disks[i].minor == m.minor {
			dev.disk = &disks[i]
			return dev, nil
		}
	}
	if name, ok := strings.CutPrefix(m.source, "/dev/"); ok {
		for i := range disks {
			if disks[i].name == path.Base(name) {
				dev.disk = &disks[i]
				return dev, nil
			}
		}
	}
	return dev, fmt.Errorf("%s is on %s (%s from %s, device %d:%d), which is not a block device in /proc/diskstats",
		dir, m.point, m.fsType, m.source, m.major, m.minor)
}

// osSettings reads, never changes, the operating-system settings that
// PostgreSQL tuning guides (EDB's among them) set, keyed "os.<name>":
// sysctls as os.vm.* and os.kernel.*, /proc/meminfo's huge pages as
// os.meminfo.*, transparent huge pages as os.transparent_hugepage.*, and,
// when dev is known, the data directory's file system and block device as
// os.datadir.*. Settings that do not exist on this kernel are left out.
func osSettings(proc, sys fs.FS, dev *device) map[string]string {
	out := map[string]string{}
	read := func(fsys fs.FS, name string) (string, bool) {
		if fsys == nil {
			return "", false
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return "", false
		}
		return strings.TrimSpace(string(b)), true
	}
	for _, k := range []string{"vm.dirty_background_bytes", "vm.dirty_background_ratio", "vm.dirty_bytes",
		"vm.dirty_ratio", "vm.dirty_expire_centisecs", "vm.dirty_writeback_centisecs", "vm.nr_hugepages",
		"vm.swappiness", "vm.overcommit_memory", "vm.overcommit_ratio", "kernel.sched_autogroup_enabled"} {
		if v, ok := read(proc, "sys/"+strings.ReplaceAll(k, ".", "/")); ok {
			out["os."+k] = v
		}
	}
	// sched_migration_cost_ns moved to debugfs in Linux 5.13.
	if v, ok := read(proc, "sys/kernel/sched_migration_cost_ns"); ok {
		out["os.kernel.sched_migration_cost_ns"] = v
	} else if v, ok := read(sys, "kernel/debug/sched/migration_cost_ns"); ok {
		out["os.kernel.sched_migration_cost_ns"] = v
	}
	if b, err := fs.ReadFile(proc, "meminfo"); err == nil {
		mi := parseMeminfo(b)
		for _, k := range []string{"HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "Hugepagesize"} {
			if v, ok := mi[k]; ok {
				out["os.meminfo."+k] = v
			}
		}
	}
	for _, k := range []string{"enabled", "defrag"} {
		if v, ok := read(sys, "kernel/mm/transparent_hugepage/"+k); ok {
			out["os.transparent_hugepage."+k] = bracketed(v)
		}
	}
	if dev != nil {
		out["os.datadir.mount_point"] = dev.point
		out["os.datadir.fstype"] = dev.fsType
		out["os.datadir.source"] = dev.source
		out["os.datadir.mount_options"] = dev.options
		out["os.datadir.super_options"] = dev.superOptions
		if dev.disk != nil {
			out["os.datadir.device"] = dev.disk.name
			q := fmt.Sprintf("dev/block/%d:%d/queue/", dev.disk.major, dev.disk.minor)
			if v, ok := read(sys, q+"read_ahead_kb"); ok {
				out["os.datadir.read_ahead_kb"] = v
			}
			if v, ok := read(sys, q+"scheduler"); ok {
				out["os.datadir.scheduler"] = bracketed(v)
			}
		}
	}
	return out
}
