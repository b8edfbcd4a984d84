package sysmon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbarena/dbarena/engine"
)

// Source is one origin of counters and gauges: a server's statistics
// views, /proc files. Sample adds the source's values to s; an error means
// the sample has none (or only some) of them, and is counted by the
// Monitor, never fatal. A Source is called from one goroutine at a time.
type Source interface {
	// Name is a short name for notes: "postgres", "mysql", "host",
	// "process", "disk".
	Name() string
	// Sample reads the source's current values into s.
	Sample(ctx context.Context, s *Sample) error
}

// sampleTimeout bounds one sample of all sources; openTimeout bounds the
// statements Open runs.
const (
	sampleTimeout = 2 * time.Second
	openTimeout   = 10 * time.Second
)

// Config is what is known about the server when the monitor opens. Every
// field is optional.
type Config struct {
	// Conn is a connection of the monitor's own to the target (never a
	// worker's: a Conn is not safe for concurrent use): through it the
	// monitor reads the server's statistics and finds its pid and data
	// directory. The caller closes it after the monitor's last Tick.
	Conn Conn
	// Dialect is the dialect of Conn's engine: its name finds the
	// engine's engine.ServerStats, and it tells a lost connection from
	// other errors. Required with Conn.
	Dialect engine.Dialect
	// ServerPID is the server's main process on this host (postmaster,
	// mariadbd). 0 means: find it through Conn, which succeeds only when
	// the server is on this host.
	ServerPID int
	// DataDir is the server's data directory on this host. "" means: ask
	// the server through Conn.
	DataDir string
	// Proc and Sys are the /proc and /sys file systems; nil means the
	// real ones. Tests pass recorded fixtures.
	Proc, Sys fs.FS
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Reopen, when set, opens a new connection of the monitor's own to
	// the target. The monitor calls it when its connection is lost (the
	// server restarted, or the connection was killed): at once, and then
	// at every sample until it succeeds. It then runs the engine's
	// ServerStats.Open again on the new connection and, when it found the
	// server's process itself, follows the server to its new process.
	// The connection Reopen replaces is the caller's to close (Reopen may
	// close it), and so is the last one, after the monitor's last Tick.
	// Without Reopen a lost connection stays lost.
	Reopen func(ctx context.Context) (Conn, error)
	// Locate, when set, asks the server where its process is (engines
	// whose server tells it, engine.ProcessReporter): its main process on
	// this host and its data directory. Open calls it when neither
	// ServerPID nor the engine's statistics give the process, and the
	// monitor calls it again when that process is gone (a restart), at
	// every sample until it answers, to follow the server to its new one.
	Locate func(ctx context.Context) (pid int, dataDir string, err error)
	// ProvisionedIOPS is the IOPS the data directory's device was
	// provisioned with (a cloud volume's), for disk_iops_pct; 0 unknown.
	ProvisionedIOPS float64
}

// Monitor samples a set of sources and turns consecutive samples into
// Intervals. Its methods are safe for concurrent use; sampling is
// serialised.
type Monitor struct {
	mu      sync.Mutex
	sources []Source
	now     func() time.Time

	env   procEnv
	stats *engine.ServerStats // the engine's, or nil
	// The sources Open found, in sampling order; nil when unused.
	engSrc   Source
	procSrc  *processSource
	hostSrc  *hostSource
	diskSrc  *diskSource
	cliSrc   *clientSource
	pidFound bool // the pid was found through the engine, not given
	// unplaced: the server looks local, but its process was not found.
	unplaced bool

	// Reconnecting (Config.Reopen).
	conn        Conn
	dialect     engine.Dialect
	reopen      func(ctx context.Context) (Conn, error)
	locateFn    func(ctx context.Context) (int, string, error)
	serverStart float64 // when the server started, as it said; 0 unknown
	lost        bool    // the connection is lost: reopen before sampling
	reopened    int
	reopenFails int
	reopenErr   string
	procChanges int
	// freshEng and freshProc mark sources new in the coming sample:
	// their counters start there, no delta is taken across.
	freshEng, freshProc bool
	fresh               map[string]bool // counters new in the last sample
	errs                map[string]error

	provisionedIOPS float64 // Config.ProvisionedIOPS

	// Impossible values dropped from intervals, by metric.
	cores      int // CPUs of the host, from /proc/stat; 0 unknown
	tick       int
	impossible map[string]int
	lastBad    map[string]float64
	// short counts the intervals too short for the server's CPU
	// (minCPUTicks); lastShort is the last one's length.
	short     int
	lastShort time.Duration
	// shortClient counts them for dbarena's own CPU (client_cpu_pct,
	// host_other_cpu_pct).
	shortClient int

	notes   []string // from Open, in order
	pid     int
	dataDir string
	devName string
	os      map[string]string

	prev, spare *Sample
	samples     int
	failed      map[string]int    // by source
	lastErr     map[string]string // by source
	backwards   map[string]int    // by counter
}

// New returns a monitor of the given sources, with nothing else known
// (no notes, no OS settings). Open is the usual way to make one.
func New(sources ...Source) *Monitor {
	return &Monitor{sources: sources, now: time.Now, tick: defaultClockTick,
		failed: map[string]int{}, lastErr: map[string]string{}, backwards: map[string]int{},
		fresh: map[string]bool{}, errs: map[string]error{}, impossible: map[string]int{}, lastBad: map[string]float64{}}
}

// Open builds a monitor from what is known, never failing: every source
// that can work is used, and every one that cannot is left out with a
// reason in Notes.
//
//   - Conn: the statistics of its engine, as the engine registered them
//     (engine.Registration.ServerStats): ServerStats.Open reads what the
//     server says about itself and returns a source, notes and where the
//     server's process is (engine.ProcessLocator). Unless a pid is given,
//     the monitor finds that process in /proc: the parent of a backend,
//     the pid in a pid file or the one process of the engine's names that
//     started when the server did; each must run one of those names and
//     not have started after the server (a pid of another pid namespace
//     names some other process). The data directory is the one the server
//     gives, else the one on its main process's command line.
//   - A server pid (given or found): its process tree's CPU, and the host's
//     CPU from /proc/stat.
//   - A data directory on this host (given, or from the server when its
//     pid was found): its block device's I/O from /proc/diskstats. The
//     directory is mapped to its mount through the server's
//     /proc/<pid>/mountinfo (its own mount namespace; /proc/self/mountinfo
//     when that cannot be read) and the mount to its device by number.
//
// Open runs a few statements on Conn, for at most 10 s, and reads /proc.
func Open(ctx context.Context, cfg Config) *Monitor {
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	m := New()
	if cfg.Now != nil {
		m.now = cfg.Now
	}
	proc, sys := cfg.Proc, cfg.Sys
	if proc == nil {
		proc = os.DirFS("/proc")
	}
	if sys == nil {
		sys = os.DirFS("/sys")
	}
	env := procEnv{proc: proc, tick: clockTick(proc)}
	if b, err := fs.ReadFile(proc, "uptime"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			env.uptime, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	if b, err := fs.ReadFile(proc, "stat"); err == nil {
		_, env.btime, _ = parseProcStat(b)
		m.cores = countCPUs(b)
	}
	m.tick = env.tick
	m.provisionedIOPS = cfg.ProvisionedIOPS
	m.reopen = cfg.Reopen
	m.locateFn = cfg.Locate
	m.conn, m.dialect = cfg.Conn, cfg.Dialect

	m.env = env
	pid, dataDir := cfg.ServerPID, cfg.DataDir
	local := pid > 0 || dataDir != "" // what the caller says is on this host
	var logDir string
	if cfg.Conn != nil && cfg.Dialect == nil {
		m.addNote("monitor", "the connection's engine is not known (no Config.Dialect): no server statistics")
	} else if cfg.Conn != nil {
		if stats, name := serverStatsOf(cfg.Dialect); stats == nil {
			m.addNote(name, "no server statistics for this engine")
		} else {
			m.stats = stats
			loc := m.openStats(ctx, cfg.Conn)
			m.serverStart = loc.Start
			if pid == 0 {
				if p := m.locate(loc); p > 0 {
					pid, local = p, true
					m.pidFound = true
				}
			}
			if dataDir == "" && local {
				dataDir = loc.DataDir
				if dataDir == "" && pid > 0 {
					dataDir = dataDirFromCmdline(proc, pid, loc.DataDirFlag)
				}
			}
			logDir = loc.LogDir
		}
	}

	if pid == 0 && cfg.Locate != nil {
		switch p, dd, err := cfg.Locate(ctx); {
		case err != nil:
			m.addNote("process", "%v: no process, host or disk metrics", err)
			m.unplaced = true
		case p > 0:
			pid, local, m.pidFound = p, true, true
			if dataDir == "" {
				dataDir = dd
			}
		}
	}

	mountinfo := "self/mountinfo"
	if pid > 0 {
		src, err := newProcessSource(proc, pid, env.tick)
		if err != nil {
			m.addNote("process", "pid %d: %v: no server CPU", pid, err)
		} else {
			m.procSrc = src
			m.pid = pid
			if _, err := fs.ReadFile(proc, strconv.Itoa(pid)+"/mountinfo"); err == nil {
				mountinfo = strconv.Itoa(pid) + "/mountinfo"
			}
		}
	}
	if local {
		m.hostSrc = &hostSource{proc: proc}
		dev := m.openDisk(proc, mountinfo, dataDir, logDir)
		m.os = osSettings(proc, sys, dev)
	}
	if c, err := newClientSource(proc, env.tick); err == nil {
		// A server that is this process (a test's) is counted once.
		self, _ := readSelfPID(proc)
		c.serverLocal = (local || m.unplaced) && (self == 0 || self != m.pid)
		m.cliSrc = c
		if c.serverLocal && m.procSrc == nil {
			m.addNote("client", "the server is or may be on this host, but its CPU is not read: no host_other_cpu_pct (give --server-pid)")
		}
	}
	m.rebuild()
	return m
}

// openStats runs the engine's ServerStats.Open on c: its notes are added,
// its source becomes the monitor's, and where its process is is returned.
func (m *Monitor) openStats(ctx context.Context, c Conn) engine.ProcessLocator {
	op := m.stats.Open(ctx, c)
	m.addNotes(op.Notes...)
	m.engSrc = nil
	if op.Source != nil {
		m.engSrc = engineSource{op.Source}
	}
	return op.Process
}

// locate finds the server's main process as the engine says where it is,
// 0 when it cannot (a note says why, unless nothing is known).
func (m *Monitor) locate(loc engine.ProcessLocator) int {
	switch {
	case loc.Remote != "":
		m.addNote("process", "%s: no process, host or disk metrics (give its pid if it is)", loc.Remote)
		return 0
	case len(loc.Names) == 0:
		return 0
	}
	p, err := m.env.locate(loc)
	if err != nil {
		looks := ""
		if loc.Local != "" {
			looks = " (" + loc.Local + ")"
		}
		m.addNote("process", "the server looks local%s but its pid was not found: %v", looks, err)
		m.unplaced = true
		return 0
	}
	return p
}

// rebuild lists the sources in sampling order: the engine's statistics,
// the server's process, the host, the disk, dbarena's own process.
func (m *Monitor) rebuild() {
	m.sources = m.sources[:0]
	if m.engSrc != nil {
		m.sources = append(m.sources, m.engSrc)
	}
	if m.procSrc != nil {
		m.sources = append(m.sources, m.procSrc)
	}
	if m.hostSrc != nil {
		m.sources = append(m.sources, m.hostSrc)
	}
	if m.diskSrc != nil {
		m.sources = append(m.sources, m.diskSrc)
	}
	if m.cliSrc != nil {
		m.sources = append(m.sources, m.cliSrc)
	}
}

// openDisk adds the source of dataDir's block device, when it has one, and
// returns its mount (nil when unknown). mountinfo is the mountinfo file to
// map paths with. logDir, when not "", is the server's write-ahead log
// directory below dataDir (PostgreSQL's pg_wal): a note says when it is on
// another device.
func (m *Monitor) openDisk(proc fs.FS, mountinfo, dataDir, logDir string) *device {
	switch {
	case dataDir == "":
		m.addNote("disk", "the data directory is unknown: no disk metrics")
		return nil
	case !filepath.IsAbs(dataDir):
		m.addNote("disk", "data directory %q is not an absolute path: no disk metrics", dataDir)
		return nil
	}
	// In our own mount namespace, symbolic links resolve here.
	resolve := func(p string) string {
		p = filepath.Clean(p)
		if mountinfo == "self/mountinfo" {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				return r
			}
		}
		return p
	}
	dataDir = resolve(dataDir)
	m.dataDir = dataDir
	d, err := findDevice(proc, mountinfo, dataDir)
	if err != nil {
		m.addNote("disk", "%v: the disk metrics are absent", err)
		if d.point == "" {
			return nil
		}
		return &d
	}
	m.diskSrc = &diskSource{proc: proc, major: d.disk.major, minor: d.disk.minor, name: d.disk.name, provisioned: m.provisionedIOPS}
	m.devName = d.disk.name
	if logDir != "" {
		wal := resolve(filepath.Join(dataDir, logDir))
		if w, err := findDevice(proc, mountinfo, wal); err == nil && (w.major != d.major || w.minor != d.minor) {
			m.addNote("disk", "%s (%s) is on %s, not on the data directory's %s: the disk metrics leave out WAL writes", logDir, wal, w.disk.name, d.disk.name)
		}
	}
	return &d
}

// addNote adds a note, unless the same one is there already (a reopened
// connection finds what Open found).
func (m *Monitor) addNote(source, format string, args ...any) {
	m.addNotes(source + ": " + fmt.Sprintf(format, args...))
}

func (m *Monitor) addNotes(notes ...string) {
	for _, n := range notes {
		if !slices.Contains(m.notes, n) {
			m.notes = append(m.notes, n)
		}
	}
}

// WithNotes adds notes of the caller's (why a source could not be used) to
// those of m and returns m.
func (m *Monitor) WithNotes(notes ...string) *Monitor {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.notes = append(m.notes, notes...)
	return m
}

// Start takes the first sample, the one the next Tick's interval starts
// from. Call it when the run (or its measured phase) begins; calling it
// again drops the previous sample, so a pause between runs does not fall
// into an interval.
func (m *Monitor) Start(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prev = m.read(ctx, m.prev)
}

// Tick takes a sample and returns the interval since the previous one (the
// one of Start or of the last Tick); nil on the first call. Sources that
// fail leave their metrics out and are counted in Notes; counters that
// went backwards leave theirs out and are counted too. A lost connection
// is reopened (Config.Reopen): the counters of a source that starts anew
// (a restarted server's statistics, its new process) give no delta in the
// interval where they reappear. A value that cannot be (a negative one, a
// percentage above 100, server CPU above 100% per CPU of the host) is left
// out and counted in Notes, never reported nor clamped; so is the server's
// CPU over an interval too short to measure it (minCPUTicks).
func (m *Monitor) Tick(ctx context.Context) Interval {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur := m.read(ctx, m.spare)
	var iv Interval
	if m.prev != nil {
		prev := m.prev
		if len(m.fresh) > 0 {
			// No delta across a restart: the new counters start here.
			p := *prev
			p.Counters = make(map[string]uint64, len(prev.Counters))
			for k, v := range prev.Counters {
				if !m.fresh[k] {
					p.Counters[k] = v
				}
			}
			prev = &p
		}
		iv = Delta(prev, cur)
		for _, name := range Backwards(prev, cur) {
			m.backwards[name]++
		}
		m.dropImpossible(iv)
	}
	m.prev, m.spare = cur, m.prev
	return iv
}

// minCPUTicks is the shortest interval, in clock ticks, over which the
// server's CPU is a measurement: the process tree's CPU time moves in
// ticks (10 ms), so over a shorter one a tick or two read as 100% or
// more. Samples come that close after one that a stopped server blocked
// (SIGSTOP, then SIGCONT): the samples behind it follow back to back,
// milliseconds apart. A report interval of 100 ms keeps its figures.
const minCPUTicks = 5

// dropImpossible removes from iv the values no server can have (a
// negative one, a percentage above 100, the server's CPU above 100% per
// CPU of the host) and the server's CPU over an interval too short to
// measure it (minCPUTicks), counting them for Notes. Nothing is clamped.
func (m *Monitor) dropImpossible(iv Interval) {
	secs := iv[IntervalKey]
	units := metricUnits()
	for k, v := range iv {
		if k == IntervalKey {
			continue
		}
		limit := math.Inf(1)
		switch {
		case isServerCPU(k) || isClientCPU(k):
			if secs*float64(m.tick) < minCPUTicks {
				delete(iv, k)
				switch k { // counted once, for the server's three, for the client's two
				case "server_cpu_pct":
					m.short++
					m.lastShort = time.Duration(secs * float64(time.Second))
				case "client_cpu_pct":
					m.shortClient++
					m.lastShort = time.Duration(secs * float64(time.Second))
				}
				continue
			}
			switch {
			case k == "server_cpu_pct_host" || k == "host_other_cpu_pct":
				limit = 100
			case m.cores > 0 && k == "server_cpu_cores":
				limit = float64(m.cores)
			case m.cores > 0:
				limit = cpuLimit(m.cores)
			}
		case units[k] == "%":
			limit = 100
		}
		if v < 0 || v > limit || math.IsNaN(v) {
			delete(iv, k)
			m.impossible[k]++
			m.lastBad[k] = v
		}
	}
}

// cpuLimit is the most CPU (in % of one core) a process tree can use on
// a host of cores CPUs: 100 per CPU. A reading above it is the
// measurement's error (a sample read late, ticks rounded), left out.
func cpuLimit(cores int) float64 {
	return 100 * float64(cores)
}

// read samples every source into s (reused when not nil), reopening the
// connection first when it was lost, and again at once when this sample
// finds it lost.
func (m *Monitor) read(ctx context.Context, s *Sample) *Sample {
	if s == nil {
		s = &Sample{}
	}
	s.reset(m.now())
	sctx, cancel := context.WithTimeout(ctx, sampleTimeout)
	defer cancel()
	clear(m.fresh)
	clear(m.errs)
	tried := false
	if m.lost && m.canReopen() {
		tried = true
		m.reconnect(sctx)
	}
	for _, src := range m.sources {
		m.errs[src.Name()] = m.sample(sctx, src, s)
	}
	if !tried && m.lost && m.canReopen() && ctx.Err() == nil && m.reconnect(sctx) {
		// Sample again what the new connection replaced.
		for _, src := range m.sources {
			if (src == m.engSrc && m.engSrc != nil) || (m.procSrc != nil && src == Source(m.procSrc)) {
				m.errs[src.Name()] = m.sample(sctx, src, s)
			}
		}
	}
	for name, err := range m.errs {
		if err != nil && ctx.Err() == nil {
			m.failed[name]++
			m.lastErr[name] = err.Error()
		}
	}
	m.freshEng, m.freshProc = false, false
	m.samples++
	return s
}

// sample reads one source into s. The counters of a source that starts
// anew are marked fresh; an error that says the connection or the
// server's process is gone marks the connection lost.
func (m *Monitor) sample(ctx context.Context, src Source, s *Sample) error {
	isEng := m.engSrc != nil && src == m.engSrc
	isProc := m.procSrc != nil && src == Source(m.procSrc)
	var err error
	switch {
	case isEng && m.freshEng:
		// Every counter the new source sets starts here.
		err = m.engSrc.(engineSource).src.Sample(ctx, freshSink{s, m.fresh})
	case isProc && m.freshProc:
		err = src.Sample(ctx, s)
		m.fresh[cServerCPU] = true
	default:
		err = src.Sample(ctx, s)
	}
	if err != nil && ctx.Err() == nil {
		switch {
		case isEng && m.conn != nil && m.dialect.Classify(err) == engine.ClassConnLost:
			m.lost = true
		case isProc && m.pidFound && errors.Is(err, errProcessGone):
			m.lost = true // the server restarted: find it again
		}
	}
	return err
}

// freshSink records counters into a sample and marks them fresh.
type freshSink struct {
	s     *Sample
	fresh map[string]bool
}

func (f freshSink) SetCounter(name string, v uint64) {
	f.s.SetCounter(name, v)
	f.fresh[name] = true
}

func (f freshSink) SetGauge(name string, v float64) { f.s.SetGauge(name, v) }

// reconnect opens a new connection (Config.Reopen), runs the engine's
// ServerStats.Open on it and, when the monitor found the server's process
// itself, finds it again: a restarted server has a new one. It tells
// whether the connection was reopened.
func (m *Monitor) reconnect(ctx context.Context) bool {
	if m.reopen == nil {
		return m.relocate(ctx)
	}
	c, err := m.reopen(ctx)
	if err != nil {
		m.reopenFails++
		m.reopenErr = err.Error()
		return false
	}
	m.conn = c
	if m.stats == nil {
		m.lost = false
		m.reopened++
		return true
	}
	had := m.engSrc != nil
	op := m.stats.Open(ctx, c)
	if had && op.Source == nil {
		// A connection that reads no statistics where the last one did
		// is not back yet (an engine whose driver connects lazily opens
		// one while the server is still down): try again at the next
		// sample.
		m.reopenFails++
		m.reopenErr = "the new connection reads no statistics: " + strings.Join(op.Notes, "; ")
		m.engSrc = nil
		m.rebuild()
		return false
	}
	m.lost = false
	m.reopened++
	m.addNotes(op.Notes...)
	m.engSrc = nil
	if op.Source != nil {
		m.engSrc = engineSource{op.Source}
	}
	loc := op.Process
	same := m.serverStart > 0 && loc.Start > 0 && math.Abs(loc.Start-m.serverStart) <= startSlack
	m.serverStart = loc.Start
	// The same server (only the connection was lost) goes on counting;
	// a restarted one starts again.
	m.freshEng = !same
	if m.pidFound {
		pid := m.locate(loc)
		if pid == 0 && m.locateFn != nil {
			// The engine's server tells its process (Config.Locate).
			pid, _, _ = m.locateFn(ctx)
		}
		if pid > 0 {
			m.follow(pid)
		}
	}
	m.rebuild()
	return true
}

// follow makes pid the server's process when it is another process than
// the one sampled (a restarted server): its CPU counts from the next
// sample on.
func (m *Monitor) follow(pid int) {
	st, err := readPidStat(m.env.proc, pid)
	if err != nil || (m.procSrc != nil && pid == m.procSrc.pid && st.start == m.procSrc.start) {
		return
	}
	if src, err := newProcessSource(m.env.proc, pid, m.env.tick); err == nil {
		m.procSrc, m.pid = src, pid
		m.freshProc = true
		m.procChanges++
	}
}

// canReopen tells whether a lost connection or process can be found
// again (Config.Reopen or Config.Locate).
func (m *Monitor) canReopen() bool { return m.reopen != nil || m.locateFn != nil }

// relocate asks the server where its process is (Config.Locate) after the
// one it had is gone, and follows it there. It tells whether it found one.
func (m *Monitor) relocate(ctx context.Context) bool {
	pid, _, err := m.locateFn(ctx)
	if err != nil || pid <= 0 {
		if err == nil {
			err = errors.New("the server gave no process")
		}
		m.reopenFails++
		m.reopenErr = err.Error()
		return false
	}
	m.lost = false
	m.follow(pid)
	m.rebuild()
	return true
}

// Notes explains what is not measured and why: sources that could not be
// used (from Open), sources whose samples failed (how many, the last
// error) and counters that went backwards (a statistics reset or a
// server restart; the metrics needing them are absent from those
// intervals). The notes from Open come first, in order; the others are
// sorted.
func (m *Monitor) Notes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := append([]string(nil), m.notes...)
	more := append(m.problems(), m.changes()...)
	sort.Strings(more)
	return append(out, more...)
}

// Problems are the notes that say measurements were lost during the
// runs, sorted: samples that failed, counters that went backwards,
// impossible values left out, a connection lost and reopened or not. The
// notes from Open (a source not available) and those of changes that
// lose nothing (a restarted server's new process) are not problems.
func (m *Monitor) Problems() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.problems()
	sort.Strings(out)
	return out
}

// ResetProblems forgets the problems seen so far (Problems), so that
// the next result file of a target its monitor keeps sampling reports
// only its own. What Open noted and the changes seen stay.
func (m *Monitor) ResetProblems() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.samples = 0
	clear(m.failed)
	clear(m.lastErr)
	clear(m.backwards)
	clear(m.impossible)
	clear(m.lastBad)
	m.short, m.lastShort, m.shortClient = 0, 0, 0
	m.reopened, m.reopenFails, m.reopenErr = 0, 0, ""
}

func (m *Monitor) problems() []string {
	var out []string
	for src, n := range m.failed {
		out = append(out, fmt.Sprintf("%s: %d of %d samples failed, the last with: %s", src, n, m.samples, m.lastErr[src]))
	}
	for c, n := range m.backwards {
		out = append(out, fmt.Sprintf("counter %s went backwards in %d interval(s) (statistics reset or server restart): the metrics that need it are absent there", c, n))
	}
	for k, n := range m.impossible {
		out = append(out, fmt.Sprintf("metric %s had an impossible value in %d interval(s) (the last %s): left out there", k, n, impossibleText(k, m.lastBad[k], m.cores)))
	}
	if m.short > 0 {
		out = append(out, fmt.Sprintf("metric server_cpu_pct was left out of %d interval(s) shorter than %d clock ticks (%v) (the last %v): its counters move in ticks",
			m.short, minCPUTicks, time.Duration(minCPUTicks)*time.Second/time.Duration(m.tick), m.lastShort.Round(time.Millisecond)))
	}
	if m.shortClient > 0 {
		out = append(out, fmt.Sprintf("metrics client_cpu_pct and host_other_cpu_pct were left out of %d interval(s) shorter than %d clock ticks (%v) (the last %v): their counters move in ticks",
			m.shortClient, minCPUTicks, time.Duration(minCPUTicks)*time.Second/time.Duration(m.tick), m.lastShort.Round(time.Millisecond)))
	}
	if m.reopened > 0 {
		out = append(out, fmt.Sprintf("connection: lost and reopened %d time(s): the server's metrics are absent from the samples without it, and no delta is taken across a server restart", m.reopened))
	}
	if m.reopenFails > 0 {
		out = append(out, fmt.Sprintf("connection: reopening it failed in %d sample(s), the last with: %s", m.reopenFails, m.reopenErr))
	}
	return out
}

// changes are the notes of what changed during the runs without a
// measurement lost.
func (m *Monitor) changes() []string {
	var out []string
	if m.procChanges > 0 {
		out = append(out, fmt.Sprintf("process: the server's process changed %d time(s) (restarted), the last to pid %d: its CPU is counted from there", m.procChanges, m.pid))
	}
	if m.procSrc != nil && m.procSrc.dips > 0 {
		out = append(out, fmt.Sprintf("process: the process tree's CPU time read lower than before in %d sample(s) (a process exited during the scan): held at the highest reading", m.procSrc.dips))
	}
	return out
}

// isServerCPU tells the metrics of the server's CPU time, which move in
// clock ticks: server_cpu_pct, server_cpu_cores, server_cpu_pct_host.
func isServerCPU(k string) bool {
	return k == "server_cpu_pct" || k == "server_cpu_cores" || k == "server_cpu_pct_host"
}

// isClientCPU tells the metrics made from dbarena's own CPU time, which
// moves in clock ticks too: client_cpu_pct, host_other_cpu_pct.
func isClientCPU(k string) bool {
	return k == "client_cpu_pct" || k == "host_other_cpu_pct"
}

// impossibleText is a dropped value and why it cannot be.
func impossibleText(k string, v float64, cores int) string {
	switch {
	case v < 0:
		return fmt.Sprintf("%.1f, below 0", v)
	case k == "server_cpu_pct" || k == "client_cpu_pct":
		return fmt.Sprintf("%.1f%%, above 100%% per CPU of the host's %d", v, cores)
	case k == "server_cpu_cores":
		return fmt.Sprintf("%.2f cores, above the host's %d", v, cores)
	default:
		return fmt.Sprintf("%.1f%%, above 100%%", v)
	}
}

// Sources names the sources in use, in sampling order.
func (m *Monitor) Sources() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.sources))
	for i, s := range m.sources {
		out[i] = s.Name()
	}
	return out
}

// ServerPID is the server's main process on this host, given or found; 0
// when the server is not known to be on this host.
func (m *Monitor) ServerPID() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pid
}

// DataDir is the server's data directory on this host (symbolic links
// resolved), or "".
func (m *Monitor) DataDir() string { return m.dataDir }

// Device is the name of the data directory's block device in
// /proc/diskstats ("sda2", "dm-0", "nvme0n1p1"), or "" when it has none.
func (m *Monitor) Device() string { return m.devName }

// OSSettings returns the server host's operating-system settings, read
// once by Open and never changed, to store with the server's settings:
// keys start with "os." (os.vm.dirty_ratio, os.kernel.sched_migration_cost_ns,
// os.meminfo.HugePages_Total, os.transparent_hugepage.enabled,
// os.datadir.fstype, os.datadir.mount_options …; docs/ARCHITECTURE.md
// lists them). It is nil when the server is not known to be on this host:
// the client's settings would say nothing about a remote server. The map
// is a copy.
func (m *Monitor) OSSettings() map[string]string {
	if m.os == nil {
		return nil
	}
	out := make(map[string]string, len(m.os))
	for k, v := range m.os {
		out[k] = v
	}
	return out
}
