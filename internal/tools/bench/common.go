package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbarena/dbarena/hostinfo"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/sysmon"
)

// errBarFailed is returned when --strict is given and a bar fails: exit 3.
var errBarFailed = errors.New("a bar FAILs (--strict)")

// errUsage marks a bad command line: exit 2.
var errUsage = errors.New("usage")

// env is what the program takes from its process, injected so that tests
// can drive it.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	args           []string // the command line after the program's name
	proc           fs.FS    // /proc
}

// seconds is a flag of whole or fractional seconds: 10, 10s, 1m30s.
type seconds struct{ d time.Duration }

// String is the duration as -h shows it: "30s", "1m" (not "1m0s").
func (s *seconds) String() string {
	v := s.d.String()
	if strings.HasSuffix(v, "m0s") {
		return strings.TrimSuffix(v, "0s")
	}
	return v
}

func (s *seconds) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		s.d = time.Duration(f * float64(time.Second))
	} else if d, err := time.ParseDuration(v); err == nil {
		s.d = d
	} else {
		return fmt.Errorf("want seconds (10) or a duration (10s, 1m30s), got %q", v)
	}
	if s.d < 0 {
		return fmt.Errorf("%q is negative", v)
	}
	return nil
}

func (s seconds) secs() float64 { return s.d.Seconds() }

// options are the options every measuring subcommand has.
type options struct {
	rounds    int
	time      seconds
	warmup    seconds
	quietWait seconds
	report    string
	strict    bool
	keepWork  bool
	timed     bool // the subcommand has --time and --warmup
}

func (o *options) register(fs *flag.FlagSet, rounds int, run, warmup time.Duration) {
	o.registerRounds(fs, rounds)
	o.timed, o.time.d, o.warmup.d = true, run, warmup
	fs.Var(&o.time, "time", "measured length of every run (10, 10s, 1m)")
	fs.Var(&o.warmup, "warmup", "warm-up before the measured phase, discarded (0: none)")
}

// registerRounds registers the options of a subcommand whose runs end
// when their work is done (loads): no --time, no --warmup.
func (o *options) registerRounds(fs *flag.FlagSet, rounds int) {
	o.quietWait.d = 30 * time.Second
	fs.IntVar(&o.rounds, "rounds", rounds, "interleaved paired `rounds` (7 or more for a 95% interval)")
	fs.Var(&o.quietWait, "quiet-wait", "before each run, wait up to this long for a second in which the host is less than 25% busy (0: do not wait)")
	fs.StringVar(&o.report, "report", "", "also write the report to `FILE`")
	fs.BoolVar(&o.strict, "strict", false, "exit 3 when a bar FAILs")
	fs.BoolVar(&o.keepWork, "keep-work", false, "keep the work directory (tool logs, result files)")
}

func (o *options) validate() []error {
	var errs []error
	if o.rounds < 1 {
		errs = append(errs, fmt.Errorf("--rounds %d: want at least 1", o.rounds))
	}
	if o.timed && o.time.d <= 0 {
		errs = append(errs, fmt.Errorf("--time %s: want more than 0", o.time.d))
	}
	return errs
}

// bench is one invocation of a measuring subcommand: its options, work
// directory, the dbarena it measures, and the cases it reports.
type bench struct {
	env
	name    string // the subcommand
	opt     options
	root    string // the repository
	work    string
	started time.Time
	load0   string // load average at the start

	dbarena        string
	dbarenaVersion string
	treeRev        string

	cleanups []func()
	known    []string // passwords of the servers' URLs found without the environment
}

// newBench makes the work directory and finds (or builds) dbarena.
func newBench(ctx context.Context, e env, name string, opt options) (*bench, error) {
	b := &bench{env: e, name: name, opt: opt, started: time.Now(), load0: loadavg(e.proc)}
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	b.root = root
	if b.work, err = os.MkdirTemp("", "dbarena-bench-"+name+"-"); err != nil {
		return nil, err
	}
	if bin := e.getenv("DBARENA_BIN"); bin != "" {
		if st, err := os.Stat(bin); err != nil || st.Mode()&0o111 == 0 {
			b.close()
			return nil, fmt.Errorf("DBARENA_BIN=%s is not an executable file", bin)
		}
		b.dbarena, b.treeRev = bin, "not built here (DBARENA_BIN)"
	} else {
		b.dbarena = filepath.Join(b.work, "dbarena")
		b.logf("building dbarena: CGO_ENABLED=0 go build -o %s ./cmd/dbarena", b.dbarena)
		if err := b.goBuild(ctx, b.root, b.dbarena, "./cmd/dbarena"); err != nil {
			b.close()
			return nil, err
		}
		b.treeRev = gitRev(b.root)
	}
	out, _ := exec.CommandContext(ctx, b.dbarena, "version").Output()
	b.dbarenaVersion = firstLine(string(out))
	return b, nil
}

// close runs the cleanups (last first) and removes the work directory.
func (b *bench) close() {
	for i := len(b.cleanups) - 1; i >= 0; i-- {
		b.cleanups[i]()
	}
	b.cleanups = nil
	if b.work == "" {
		return
	}
	if b.opt.keepWork {
		b.logf("work files kept in %s", b.work)
		return
	}
	_ = os.RemoveAll(b.work)
}

func (b *bench) onClose(f func()) { b.cleanups = append(b.cleanups, f) }

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.stderr, "bench %s: %s\n", b.name, fmt.Sprintf(format, args...))
}

// goBuild builds pkg of the module in dir into out, without cgo.
func (b *bench) goBuild(ctx context.Context, dir, out, pkg string, extraEnv ...string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), extraEnv...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, tail(string(msg), 30))
	}
	return nil
}

// repoRoot is the directory of dbarena's go.mod, found from the working
// directory upwards (make and go run start in the tree).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/dbarena/dbarena\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run it inside dbarena's source tree (no go.mod of github.com/dbarena/dbarena above the working directory)")
		}
		dir = parent
	}
}

func gitRev(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	rev := strings.TrimSpace(string(out))
	if st, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); len(bytes.TrimSpace(st)) > 0 {
		rev += " with uncommitted changes"
	}
	return rev
}

// ---------------------------------------------------------------- CPU

// snapshot is the CPU the host and the server have used at one instant.
type snapshot struct {
	at     time.Time
	host   float64 // seconds, sysmon.HostCPU
	server float64 // seconds, sysmon.ProcessTreeCPU of the server; NaN when not on this host
}

func (b *bench) snapshot(serverPID int) snapshot {
	s := snapshot{at: time.Now(), host: math.NaN(), server: math.NaN()}
	if d, _, err := sysmon.HostCPU(b.proc); err == nil {
		s.host = d.Seconds()
	}
	if serverPID > 0 {
		if d, err := sysmon.ProcessTreeCPU(b.proc, serverPID); err == nil {
			s.server = d.Seconds()
		}
	}
	return s
}

// quiet waits up to --quiet-wait for a second in which the host is less
// than 25% busy; it returns the seconds waited.
func (b *bench) quiet(ctx context.Context) float64 {
	if b.opt.quietWait.d <= 0 {
		return 0
	}
	start := time.Now()
	found := false
	for !found && time.Since(start) < b.opt.quietWait.d {
		a, cpus, err := sysmon.HostCPU(b.proc)
		if err != nil || cpus == 0 {
			return 0
		}
		select {
		case <-ctx.Done():
			return time.Since(start).Seconds()
		case <-time.After(time.Second):
		}
		c, _, err := sysmon.HostCPU(b.proc)
		if err != nil {
			return 0
		}
		found = (c-a).Seconds()/float64(cpus) < 0.25
	}
	waited := time.Since(start).Seconds()
	if found {
		waited-- // the quiet second itself
	}
	if waited >= 1 {
		b.logf("waited %.0fs for the host to quieten", waited)
	}
	return math.Max(0, math.Round(waited))
}

// ---------------------------------------------------------------- children

// child is a tool running as a child process, its output in a log file.
type child struct {
	cmd     *exec.Cmd
	logPath string
	started time.Time
}

// start runs argv with its stdout and stderr in WORK/tag.log.
func (b *bench) start(ctx context.Context, tag string, argv []string, extraEnv []string) (*child, error) {
	logPath := filepath.Join(b.work, tag+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(childEnviron(), extraEnv...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	return &child{cmd: cmd, logPath: logPath, started: time.Now()}, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// output is what the child has written so far.
func (c *child) output() string {
	out, _ := os.ReadFile(c.logPath)
	return string(out)
}

// childEnviron is this process's environment without the libpq
// variables that would send a peer to another database (PGDATABASE,
// PGSERVICE).
func childEnviron() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PGDATABASE=") && !strings.HasPrefix(kv, "PGSERVICE=") {
			out = append(out, kv)
		}
	}
	return out
}

// wait waits for the child; cpu is its user+system CPU time (the kernel's
// rusage of the child, its waited-for descendants included).
func (c *child) wait() (cpu float64, err error) {
	err = c.cmd.Wait()
	if st := c.cmd.ProcessState; st != nil {
		cpu = (st.UserTime() + st.SystemTime()).Seconds()
	}
	if err != nil {
		return cpu, fmt.Errorf("%s failed: %w; last lines of its output:\n%s", filepath.Base(c.cmd.Path), err, tail(c.output(), 30))
	}
	return cpu, nil
}

// timed is one measured run of a tool: the quiet wait, the host's and
// the server's CPU before and after, the tool's own CPU. gone, when not
// nil, waits after the tool's exit until the server has reaped its
// sessions, so that their CPU is counted. The obs it returns holds
// wall_s, proc_cpu_s, server_cpu_s, host_cpu_s, other_cpu_s and wait_s.
func (b *bench) timed(ctx context.Context, tag string, argv, extraEnv []string, serverPID int, gone func()) (obs, string, error) {
	waited := b.quiet(ctx)
	s0 := b.snapshot(serverPID)
	c, err := b.start(ctx, tag, argv, extraEnv)
	if err != nil {
		return nil, "", err
	}
	cpu, err := c.wait()
	t1 := time.Now()
	if err != nil {
		return nil, "", err
	}
	if gone != nil {
		gone()
	}
	s1 := b.snapshot(serverPID)
	o := obs{"wall_s": t1.Sub(s0.at).Seconds(), "proc_cpu_s": cpu, "wait_s": waited}
	o.addWindow(s0, s1, cpu)
	return o, c.output(), nil
}

// addWindow records the server's and the host's CPU between two
// snapshots, and what neither the server nor the tool used (other work on
// the host: the noise indicator).
func (o obs) addWindow(s0, s1 snapshot, toolCPU float64) {
	o["server_cpu_s"] = s1.server - s0.server
	o["host_cpu_s"] = s1.host - s0.host
	o["other_cpu_s"] = o["host_cpu_s"] - o["server_cpu_s"] - toolCPU
	if math.IsNaN(o["server_cpu_s"]) {
		o["other_cpu_s"] = math.NaN()
	}
}

// perUnit adds µs per unit of work (a query, a transaction) of every
// *_cpu_s figure as *_us: client_us, server_us, host_us, proc_us.
func (o obs) perUnit(units float64) {
	for _, k := range []string{"client", "server", "host", "proc"} {
		if v, ok := o[k+"_cpu_s"]; ok && units > 0 {
			o[k+"_us"] = v * 1e6 / units
		}
	}
}

// readResult reads a dbarena result file and its first run.
func readResult(path string) (*result.File, *result.Run, error) {
	f, err := result.Read(path)
	if err != nil {
		return nil, nil, err
	}
	if f.Status != "complete" {
		return nil, nil, fmt.Errorf("%s: status %q, not complete", path, f.Status)
	}
	if len(f.Runs) == 0 {
		return nil, nil, fmt.Errorf("%s: no run", path)
	}
	return f, &f.Runs[0], nil
}

// metricOf is a workload metric of a run (NOPM, TPM …), NaN when absent.
func metricOf(r *result.Run, name string) float64 {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m.Value
		}
	}
	return math.NaN()
}

// ---------------------------------------------------------------- the host

func loadavg(proc fs.FS) string {
	b, err := fs.ReadFile(proc, "loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// hostLine describes the machine for a report's header.
func hostLine() string {
	c := hostinfo.Read()
	return fmt.Sprintf("%s, %s; %d CPUs (%s), %.1f GiB RAM", c.Hostname, c.OS, c.Cores, c.CPUModel, float64(c.MemoryBytes)/(1<<30))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if s == "" {
		return "unknown"
	}
	return s
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// shown is a command line as it can be pasted into a shell, every secret
// replaced by xxxxx and a leading path of dbarena or a peer cut to its
// name.
func shown(argv []string, secrets ...string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		for _, s := range secrets {
			if s != "" {
				a = strings.ReplaceAll(a, s, "xxxxx")
			}
		}
		if i == 0 {
			a = filepath.Base(a)
		}
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,%+@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// cacheDir is where peers built from the module proxy are kept.
func (b *bench) cacheDir() string {
	if d := b.getenv("DBARENA_BENCH_CACHE"); d != "" {
		return d
	}
	if d := b.getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "dbarena-bench")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "dbarena-bench")
}

// peerBinary finds a Go peer tool: $envVar, else the cached build, else
// built once by build into the cache. It returns the path and where the
// binary comes from, for the report.
func (b *bench) peerBinary(ctx context.Context, name, version, envVar string, build func(ctx context.Context, out string) error) (string, string, error) {
	if p := b.getenv(envVar); p != "" {
		if st, err := os.Stat(p); err != nil || st.Mode()&0o111 == 0 {
			return "", "", fmt.Errorf("%s=%s is not an executable file", envVar, p)
		}
		return p, fmt.Sprintf("$%s (%s), assumed to be %s", envVar, p, version), nil
	}
	path := filepath.Join(b.cacheDir(), name+"-"+version, name)
	if _, err := os.Stat(path); err == nil {
		return path, fmt.Sprintf("github.com/pingcap/%s %s, built earlier from the module proxy (cached in %s)", name, version, filepath.Dir(path)), nil
	}
	b.logf("building %s %s from the module proxy (once; cached in %s)", name, version, filepath.Dir(path))
	tmp := filepath.Join(b.work, name)
	if err := build(ctx, tmp); err != nil {
		return "", "", fmt.Errorf("building %s %s: %w", name, version, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", "", err
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(path+".tmp", data, 0o755); err != nil {
		return "", "", err
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return "", "", err
	}
	return path, fmt.Sprintf("github.com/pingcap/%s %s, built by this run from the module proxy with %s", name, version, runtime.Version()), nil
}

// runIn runs a command in dir with extra environment, for builds.
func runIn(ctx context.Context, dir string, extraEnv []string, argv ...string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), extraEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, tail(string(out), 30))
	}
	return string(out), nil
}

var sysmonProcessTreeCPU = sysmon.ProcessTreeCPU

func nanValue() float64 { return math.NaN() }
