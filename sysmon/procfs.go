package sysmon

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"unsafe"
)

// The parsers of /proc files. Each takes the file's bytes so that tests can
// feed recorded fixtures.

// defaultClockTick is USER_HZ, the unit of /proc's CPU times, on every
// Linux architecture Go supports. clockTick reads the real value from the
// auxiliary vector (AT_CLKTCK, where the C library's sysconf(_SC_CLK_TCK)
// gets it) and falls back to this.
const defaultClockTick = 100

// atClkTck is the auxiliary vector entry holding the clock tick.
const atClkTck = 17

// clockTick returns the clock tick from proc's self/auxv, or
// defaultClockTick when it cannot be read.
func clockTick(proc fs.FS) int {
	b, err := fs.ReadFile(proc, "self/auxv")
	if err != nil {
		return defaultClockTick
	}
	if t := parseAuxvClockTick(b, int(unsafe.Sizeof(uintptr(0)))); t > 0 {
		return t
	}
	return defaultClockTick
}

// parseAuxvClockTick finds AT_CLKTCK in an auxiliary vector of native-
// endian words of wordSize bytes; 0 when absent.
func parseAuxvClockTick(b []byte, wordSize int) int {
	word := func(p []byte) uint64 {
		if wordSize == 4 {
			return uint64(binary.NativeEndian.Uint32(p))
		}
		return binary.NativeEndian.Uint64(p)
	}
	for i := 0; i+2*wordSize <= len(b); i += 2 * wordSize {
		switch word(b[i:]) {
		case 0: // AT_NULL
			return 0
		case atClkTck:
			return int(word(b[i+wordSize:]))
		}
	}
	return 0
}

// cpuTimes is the first line of /proc/stat, in clock ticks.
type cpuTimes struct {
	user, nice, system, idle, iowait, irq, softirq, steal uint64
}

// parseProcStat reads the aggregate "cpu" line and the boot time (btime,
// seconds since the epoch) of /proc/stat.
func parseProcStat(b []byte) (cpuTimes, int64, error) {
	var t cpuTimes
	var btime int64
	found := false
	for line := range bytes.Lines(b) {
		f := bytes.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch string(f[0]) {
		case "cpu":
			// Kernels before 2.6.11 lack steal; a missing column stays 0.
			dst := []*uint64{&t.user, &t.nice, &t.system, &t.idle, &t.iowait, &t.irq, &t.softirq, &t.steal}
			if len(f) < 5 {
				return t, 0, fmt.Errorf("/proc/stat: short cpu line %q", bytes.TrimSpace(line))
			}
			for i, p := range dst {
				if i+1 >= len(f) {
					break
				}
				v, err := strconv.ParseUint(string(f[i+1]), 10, 64)
				if err != nil {
					return t, 0, fmt.Errorf("/proc/stat: cpu line: %w", err)
				}
				*p = v
			}
			found = true
		case "btime":
			if len(f) >= 2 {
				btime, _ = strconv.ParseInt(string(f[1]), 10, 64)
			}
		}
	}
	if !found {
		return t, 0, errors.New("/proc/stat: no cpu line")
	}
	return t, btime, nil
}

// countCPUs counts the per-CPU lines ("cpu0", "cpu1" …) of /proc/stat: the
// CPUs online. 0 when there are none.
func countCPUs(b []byte) int {
	n := 0
	for line := range bytes.Lines(b) {
		if rest, ok := bytes.CutPrefix(line, []byte("cpu")); ok && len(rest) > 0 && rest[0] >= '0' && rest[0] <= '9' {
			n++
		}
	}
	return n
}

// pidStat is what we use of /proc/<pid>/stat. CPU times are in clock ticks;
// start is the start time in clock ticks since boot.
type pidStat struct {
	pid, ppid                    int
	comm                         string
	state                        byte
	utime, stime, cutime, cstime uint64
	start                        uint64
}

// parsePidStat parses /proc/<pid>/stat. The command name is in parentheses
// and may itself hold spaces and parentheses, so the fields after it are
// found from the last ')'. It allocates only the command name: it runs
// for every process on the host at every sample.
func parsePidStat(b []byte) (pidStat, error) {
	var s pidStat
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return s, fmt.Errorf("stat: no command name in %.40q", b)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return s, fmt.Errorf("stat: pid: %w", err)
	}
	s.pid = pid
	s.comm = string(b[open+1 : end])
	// Walk the fields after the name; n is the field number of proc(5),
	// the state being field 3.
	rest := b[end+1:]
	n := 2
	for len(rest) > 0 && n < 22 {
		rest = bytes.TrimLeft(rest, " \n")
		k := bytes.IndexAny(rest, " \n")
		if k < 0 {
			k = len(rest)
		}
		f := rest[:k]
		rest = rest[k:]
		if len(f) == 0 {
			break
		}
		n++
		var dst *uint64
		switch n {
		case 3:
			s.state = f[0]
			continue
		case 4:
			v, err := strconv.Atoi(string(f))
			if err != nil {
				return s, fmt.Errorf("stat of %d: field 4: %w", pid, err)
			}
			s.ppid = v
			continue
		case 14:
			dst = &s.utime
		case 15:
			dst = &s.stime
		case 16:
			dst = &s.cutime
		case 17:
			dst = &s.cstime
		case 22:
			dst = &s.start
		default:
			continue
		}
		v, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return s, fmt.Errorf("stat of %d: field %d: %w", pid, n, err)
		}
		*dst = uint64(max(v, 0))
	}
	if n < 22 {
		return s, fmt.Errorf("stat of %d: %d fields, want ≥ 22", pid, n)
	}
	return s, nil
}

// readPidStat reads and parses <pid>/stat under proc.
func readPidStat(proc fs.FS, pid int) (pidStat, error) {
	b, err := fs.ReadFile(proc, strconv.Itoa(pid)+"/stat")
	if err != nil {
		return pidStat{}, err
	}
	return parsePidStat(b)
}

// readSmall reads a small file into buf's storage, growing it only when the
// file does not fit, and returns the bytes read. /proc files have no size,
// so fs.ReadFile would allocate a buffer per read.
func readSmall(fsys fs.FS, name string, buf []byte) ([]byte, error) {
	buf = buf[:0]
	f, err := fsys.Open(name)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf[:0], err
		}
	}
}

// diskStat is one line of /proc/diskstats. Sectors are 512 bytes.
type diskStat struct {
	major, minor                                   int
	name                                           string
	reads, readSectors, writes, writeSectors, ioMS uint64
}

// parseDiskstats parses /proc/diskstats (kernel 2.6+ layout: 14 fields,
// 18 with discards, 20 with flushes).
func parseDiskstats(b []byte) ([]diskStat, error) {
	var out []diskStat
	for line := range bytes.Lines(b) {
		f := bytes.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 14 {
			return nil, fmt.Errorf("/proc/diskstats: %d fields in %q, want ≥ 14", len(f), bytes.TrimSpace(line))
		}
		var d diskStat
		var err error
		num := func(i int) uint64 {
			v, e := strconv.ParseUint(string(f[i]), 10, 64)
			if e != nil && err == nil {
				err = fmt.Errorf("/proc/diskstats: %s: field %d: %w", f[2], i+1, e)
			}
			return v
		}
		d.major, d.minor, d.name = int(num(0)), int(num(1)), string(f[2])
		d.reads, d.readSectors = num(3), num(5)
		d.writes, d.writeSectors = num(7), num(9)
		d.ioMS = num(12)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// mount is one line of /proc/<pid>/mountinfo.
type mount struct {
	major, minor int
	root         string // the mounted directory of the file system
	point        string // where it is mounted
	options      string // per-mount options
	fsType       string
	source       string
	superOptions string
}

// parseMountinfo parses a mountinfo file (proc(5)):
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
func parseMountinfo(b []byte) ([]mount, error) {
	var out []mount
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 7 || sep < 0 || sep+2 >= len(f) {
			return nil, fmt.Errorf("mountinfo: malformed line %q", sc.Text())
		}
		maj, min, ok := strings.Cut(f[2], ":")
		m := mount{root: unescapeMount(f[3]), point: unescapeMount(f[4]), options: f[5],
			fsType: f[sep+1], source: unescapeMount(f[sep+2])}
		if sep+3 < len(f) {
			m.superOptions = f[sep+3]
		}
		var err1, err2 error
		m.major, err1 = strconv.Atoi(maj)
		m.minor, err2 = strconv.Atoi(min)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("mountinfo: bad device %q", f[2])
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, \011,
// \012, \134).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountOf returns the mount that holds the absolute, clean path dir: the
// one with the longest mount point that is dir or a parent of it, the
// latest such line when several mounts stack on one point.
func mountOf(mounts []mount, dir string) (mount, bool) {
	best, found := mount{}, false
	for _, m := range mounts {
		if !within(dir, m.point) {
			continue
		}
		if !found || len(m.point) >= len(best.point) {
			best, found = m, true
		}
	}
	return best, found
}

// within tells whether dir is point or below it.
func within(dir, point string) bool {
	if point == "/" {
		return strings.HasPrefix(dir, "/")
	}
	return dir == point || strings.HasPrefix(dir, point+"/")
}

// parseMeminfo returns the "Key: value" lines of /proc/meminfo, values as
// written ("2048 kB", "0").
func parseMeminfo(b []byte) map[string]string {
	out := map[string]string{}
	for line := range bytes.Lines(b) {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if ok {
			out[string(bytes.TrimSpace(k))] = string(bytes.TrimSpace(v))
		}
	}
	return out
}

// bracketed returns the selected value of a sysfs choice file,
// "always madvise [never]" → "never"; the trimmed text when nothing is
// bracketed.
func bracketed(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}
