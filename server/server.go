package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbarena/dbarena/target"
)

// The database, user and files every managed server has.
const (
	dbUser       = "bench"
	dbName       = "bench"
	recordFile   = "server.json"
	passwordFile = "password"
	logFile      = "server.log"
	setupLogFile = "setup.log"
	backendDir   = "backend"
	recordFormat = 1
)

// record is what a server's server.json holds: everything Lookup needs to
// find and stop the server again. It holds no secret.
type record struct {
	Format int    `json:"format"`
	Name   string `json:"name"`
	Kind   Kind   `json:"kind"`
	// ThrowAway: started without a name; its Target is labelled with
	// the kind.
	ThrowAway bool `json:"throw_away,omitempty"`
	// State is "starting" until the server has been checked, then
	// "running".
	State      string `json:"state"`
	Port       int    `json:"port"`
	PID        int    `json:"pid"`
	StartTicks uint64 `json:"start_ticks,omitempty"`
	// Command is the program and arguments the server's process was
	// started with, which Restart starts again.
	Command []string `json:"command,omitempty"`
	User    string   `json:"user"`
	BinDir  string   `json:"bin_dir"`
	// RunDir holds the server's own files (data directory, generated
	// configuration); it is the state directory's run/ unless the user
	// the server runs as cannot reach that.
	RunDir  string `json:"run_dir"`
	DataDir string `json:"data_dir"`
	Knobs   []Knob `json:"knobs,omitempty"`
	// Settings are the knobs' values as the server reports them.
	Settings map[string]string `json:"settings,omitempty"`
	Version  string            `json:"version,omitempty"`
	// Backend names the started server a PgBouncer is in front of;
	// OwnBackend says it runs one of its own, in backend/.
	Backend    string    `json:"backend,omitempty"`
	OwnBackend bool      `json:"own_backend,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	// Owner is the dbarena process a server started for one command
	// belongs to (Spec.Owned); nil for a server that outlives commands.
	Owner *owner `json:"owner,omitempty"`
}

// owner is a process that owns a server: its PID and start time.
type owner struct {
	PID        int    `json:"pid"`
	StartTicks uint64 `json:"start_ticks"`
}

// Server is a managed server: started by Start, or found by Lookup or
// List. Its methods are safe for concurrent use.
type Server struct {
	dir      string // state directory: Home/servers/NAME
	rec      record
	password target.Secret
	proc     *process
	backend  *Server

	mu      sync.Mutex
	stopped bool
}

// Start starts a server as spec says, waits until it accepts connections
// and reads the knobs back from it. A knob the server refuses, does not
// know or reports with another value is an error (a *StartError whose
// cause is one *KnobError per knob), and so is everything else that keeps
// the server from coming up; either way nothing is left behind: the
// process is stopped and the server's files are removed. Problems with
// spec itself are reported all at once before anything runs (wrapping
// ErrBadSpec), then missing programs (ErrNotInstalled) and a port in use
// (ErrPortInUse).
//
// The server runs in a session of its own and outlives the calling
// process until Stop (here, or after Lookup in another process). When ctx
// ends during the start, the server is stopped and removed and the error
// wraps ctx's.
func Start(ctx context.Context, spec Spec) (*Server, error) {
	if errs := spec.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if spec.Timeout == 0 {
		spec.Timeout = time.Minute
	}
	if spec.Getenv == nil {
		spec.Getenv = os.Getenv
	}
	def := defOf(spec.Kind)
	fspec, err := withVersion(ctx, def, spec)
	if err != nil {
		return nil, err
	}
	bins, err := def.Find(fspec)
	if err != nil {
		return nil, err
	}
	// A kind in front of another without a named one starts its own,
	// from the usual places, of the version asked for when the front
	// kind has none of its own.
	var backendBins *Binaries
	if def.Backend != "" && spec.Backend == "" {
		bdef := defOf(def.Backend)
		if !bdef.known() {
			return nil, fmt.Errorf("%w %q (the backend of %s)", ErrUnknownKind, def.Backend, spec.Kind)
		}
		bspec, err := withVersion(ctx, bdef, backendSpec(def, spec))
		if err != nil {
			return nil, err
		}
		b, err := bdef.Find(bspec)
		if err != nil {
			return nil, err
		}
		backendBins = &b
	}
	if spec.Port != 0 {
		if err := checkPort(spec.Port); err != nil {
			return nil, err
		}
	}
	var backend *Server
	if def.Backend != "" && spec.Backend != "" {
		if backend, err = Lookup(spec.Home, spec.Backend); err != nil {
			return nil, fmt.Errorf("%s backend: %w", spec.Kind, err)
		}
		if backend.Kind() != def.Backend {
			return nil, fmt.Errorf("%w: %s backend %s is a %s server, not %s", ErrBadSpec, spec.Kind, spec.Backend, backend.Kind(), def.Backend)
		}
		if !backend.Alive() {
			return nil, fmt.Errorf("%s backend %s does not run (dbarena server stop %s removes it)", spec.Kind, spec.Backend, spec.Backend)
		}
	}
	servers := filepath.Join(spec.Home, "servers")
	if err := os.MkdirAll(servers, 0o755); err != nil {
		return nil, fmt.Errorf("managed servers' directory: %w", err)
	}
	name, dir := spec.Name, ""
	base := labelName(spec.Label)
	if base == "" {
		base = string(spec.Kind)
	}
	for try := 0; ; try++ {
		if spec.Name == "" {
			name = base + "-" + randomHex(3)
			if _, err := ParseKind(base); try == 0 && base != string(spec.Kind) && err != nil {
				name = base // a plan's label as it is, while free
			}
		}
		dir = filepath.Join(servers, name)
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("managed server %s: %w", name, err)
		}
		if spec.Name != "" {
			return nil, fmt.Errorf("%w: %s (in %s; dbarena server stop %s removes it)", ErrExists, name, servers, name)
		}
		if try == 10 {
			return nil, fmt.Errorf("no free name for a throw-away %s server in %s", spec.Kind, servers)
		}
	}
	return start(ctx, spec, name, dir, bins, backendBins, backend)
}

// start starts a server in its new, empty state directory dir; on failure
// it leaves nothing behind, dir included. A kind in front of another
// without a named backend starts its own first, from backendBins.
func start(ctx context.Context, spec Spec, name, dir string, bins Binaries, backendBins *Binaries, backend *Server) (s *Server, err error) {
	s = &Server{dir: dir, backend: backend}
	s.rec = record{
		Format: recordFormat, Name: name, Kind: spec.Kind, ThrowAway: spec.Name == "",
		State: "starting", BinDir: bins.Dir, Knobs: spec.Knobs, StartedAt: time.Now().UTC(),
	}
	if backend != nil {
		s.rec.Backend = backend.Name()
	}
	if spec.Owned {
		me := os.Getpid()
		ticks, _ := startTicks(me)
		s.rec.Owner = &owner{PID: me, StartTicks: ticks}
	}
	defer func() {
		if err == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if serr := s.Stop(ctx); serr != nil {
			err = errors.Join(err, fmt.Errorf("cleaning up: %w", serr))
		}
		var se *StartError
		if !errors.As(err, &se) {
			err = &StartError{Kind: spec.Kind, Name: name, Err: err}
		}
	}()

	def := defOf(spec.Kind)
	acct := caller()
	if def.RootUser != "" {
		if acct, err = unprivileged(ctx, def.RootUser); err != nil {
			return s, err
		}
	}
	s.rec.User = acct.name
	if acct.other && !acct.canSearch(bins.Dir) {
		return s, fmt.Errorf("%w: %s's programs in %s: user %s, which %s runs as under root, cannot reach that directory; put them where it can (as root, scripts/testservers install puts what it fetches in %s)",
			ErrNotInstalled, def.Title, bins.Dir, acct.name, def.Title, SystemCacheDir)
	}
	pw := randomPassword()
	if err := os.WriteFile(filepath.Join(dir, passwordFile), []byte(pw+"\n"), 0o600); err != nil {
		return s, err
	}
	s.password = target.NewSecret(pw)
	if s.rec.RunDir, err = runDir(dir, name, acct, spec.Getenv("TMPDIR")); err != nil {
		return s, err
	}
	if err := s.save(); err != nil {
		return s, err
	}
	if def.Backend != "" && s.backend == nil {
		if err := s.startOwnBackend(ctx, def, spec, *backendBins); err != nil {
			return s, err
		}
	}
	if err := def.Start(ctx, &Starting{s: s, spec: spec, bins: bins, acct: acct}); err != nil {
		return s, err
	}
	if s.rec.OwnBackend { // its knobs were asked of this server
		for k, v := range s.backend.rec.Settings {
			if _, ok := s.rec.Settings[k]; !ok {
				if s.rec.Settings == nil {
					s.rec.Settings = map[string]string{}
				}
				s.rec.Settings[k] = v
			}
		}
	}
	s.rec.State = "running"
	return s, s.save()
}

// startOwnBackend starts, in the state directory's backend/, the server
// a kind in front of another runs in front of, with the knobs that are
// not the front's own.
func (s *Server) startOwnBackend(ctx context.Context, def *KindDef, spec Spec, bins Binaries) error {
	var knobs []Knob
	for _, k := range spec.Knobs {
		if !strings.HasPrefix(k.Name, def.OwnPrefix) {
			knobs = append(knobs, k)
		}
	}
	dir := filepath.Join(s.dir, backendDir)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	s.rec.OwnBackend = true
	if err := s.save(); err != nil {
		return err
	}
	bspec := Spec{Kind: def.Backend, Knobs: knobs, Home: spec.Home, Timeout: spec.Timeout, Getenv: spec.Getenv}
	b, err := start(ctx, bspec, s.rec.Name+"-backend", dir, bins, nil, nil)
	if err != nil {
		return err
	}
	s.backend = b
	return nil
}

// runDir makes the directory for the server's own files: dir/run when
// user a can reach it and a Unix socket path in it stays short, else a
// new directory under tmp (or /tmp).
func runDir(dir, name string, a account, tmp string) (string, error) {
	rd := filepath.Join(dir, "run")
	if len(rd) <= 80 && (!a.other || a.canSearch(filepath.Dir(dir))) {
		if a.other {
			if err := os.Chmod(dir, 0o711); err != nil {
				return "", err
			}
		}
		if err := os.Mkdir(rd, 0o700); err != nil {
			return "", err
		}
		return rd, a.give(rd)
	}
	if tmp == "" {
		tmp = "/tmp"
	}
	rd, err := os.MkdirTemp(tmp, "dbarena-"+name+"-")
	if err != nil {
		return "", err
	}
	return rd, a.give(rd)
}

// save writes the record, atomically.
func (s *Server) save() error {
	b, err := json.MarshalIndent(s.rec, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(s.dir, recordFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(s.dir, recordFile))
}

// Lookup finds the server named name among the started servers of home
// (dbarena's data directory). It fails with ErrNotFound when there is
// none. The server may have died since: see Alive.
func Lookup(home, name string) (*Server, error) {
	if !nameRE.MatchString(name) {
		return nil, fmt.Errorf("%w: %q is not a server name", ErrNotFound, name)
	}
	s, err := lookupDir(home, filepath.Join(home, "servers", name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s (dbarena server list shows the started ones)", ErrNotFound, name)
	}
	return s, err
}

func lookupDir(home, dir string) (*Server, error) {
	b, err := os.ReadFile(filepath.Join(dir, recordFile))
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir}
	if err := json.Unmarshal(b, &s.rec); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, recordFile), err)
	}
	if s.rec.Format != recordFormat {
		return nil, fmt.Errorf("%s: format %d, this dbarena knows %d", filepath.Join(dir, recordFile), s.rec.Format, recordFormat)
	}
	if pw, err := os.ReadFile(filepath.Join(dir, passwordFile)); err == nil {
		s.password = target.NewSecret(strings.TrimRight(string(pw), "\r\n"))
	}
	if s.rec.PID > 0 {
		s.proc = &process{pid: s.rec.PID, ticks: s.rec.StartTicks}
	}
	switch {
	case s.rec.OwnBackend:
		if s.backend, err = lookupDir(home, filepath.Join(dir, backendDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	case s.rec.Backend != "":
		if s.backend, err = Lookup(home, s.rec.Backend); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	return s, nil
}

// List returns the servers started in home, sorted by name. A directory
// whose record cannot be read is reported in the error, and the others are
// returned all the same.
func List(home string) ([]*Server, error) {
	servers := filepath.Join(home, "servers")
	ents, err := os.ReadDir(servers)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Server
	var errs []error
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		s, err := lookupDir(home, filepath.Join(servers, e.Name()))
		switch {
		case errors.Is(err, fs.ErrNotExist): // being created or removed
		case err != nil:
			errs = append(errs, err)
		default:
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, errors.Join(errs...)
}

// Name is the server's name (generated for a throw-away server).
func (s *Server) Name() string { return s.rec.Name }

// Kind is the server's kind.
func (s *Server) Kind() Kind { return s.rec.Kind }

// ThrowAway tells whether the server was started without a name.
func (s *Server) ThrowAway() bool { return s.rec.ThrowAway }

// Port is the server's TCP port on 127.0.0.1.
func (s *Server) Port() int { return s.rec.Port }

// PID is the process ID of the server's main process (the postmaster,
// mariadbd, pgbouncer), or 0 before it ran.
func (s *Server) PID() int { return s.rec.PID }

// DataDir is the server's data directory (for PgBouncer, the directory of
// its configuration; its PostgreSQL's is Backend().DataDir()).
func (s *Server) DataDir() string { return s.rec.DataDir }

// Dir is the server's state directory: Home/servers/NAME.
func (s *Server) Dir() string { return s.dir }

// PasswordFile is the file (mode 0600) holding the password of the
// server's user bench; dbarena's --password-file takes it.
func (s *Server) PasswordFile() string { return filepath.Join(s.dir, passwordFile) }

// LogFile is the server's log (its standard output and error).
func (s *Server) LogFile() string { return filepath.Join(s.dir, logFile) }

// Version is the server's version string, e.g. "PostgreSQL 15.18".
func (s *Server) Version() string { return s.rec.Version }

// Knobs are the settings the server was started with.
func (s *Server) Knobs() []Knob { return append([]Knob(nil), s.rec.Knobs...) }

// Settings maps each knob's name to its value as the server reports it
// (SHOW, SHOW GLOBAL VARIABLES, SHOW CONFIG).
func (s *Server) Settings() map[string]string {
	out := make(map[string]string, len(s.rec.Settings))
	for k, v := range s.rec.Settings {
		out[k] = v
	}
	return out
}

// Backend is the PostgreSQL server a PgBouncer is in front of (nil for
// other kinds, and when a named backend has been removed).
func (s *Server) Backend() *Server { return s.backend }

// Owner is the PID of the dbarena process the server belongs to (see
// Spec.Owned), or 0 for a server that outlives commands.
func (s *Server) Owner() int {
	if s.rec.Owner == nil {
		return 0
	}
	return s.rec.Owner.PID
}

// Orphaned tells whether the server belongs to a dbarena process (see
// Spec.Owned) that has ended without stopping it (killed, say).
func (s *Server) Orphaned() bool {
	o := s.rec.Owner
	if o == nil {
		return false
	}
	return !(&process{pid: o.PID, ticks: o.StartTicks}).alive()
}

// Reap stops and removes the servers of home that are orphaned (see
// Orphaned), except those named in keep, and returns them. A server it
// cannot stop is an error naming it (its files are kept); the others are
// reaped all the same. Servers whose records cannot be read are left to
// List to report.
func Reap(ctx context.Context, home string, keep ...string) ([]*Server, error) {
	list, _ := List(home)
	var reaped []*Server
	var errs []error
	for _, s := range list {
		if !s.Orphaned() || containsName(keep, s.Name()) {
			continue
		}
		if err := s.Stop(ctx); err != nil {
			errs = append(errs, err)
			continue
		}
		reaped = append(reaped, s)
	}
	return reaped, errors.Join(errs...)
}

// InFront tells whether the server's kind runs in front of another (a
// PgBouncer in front of a PostgreSQL): such servers are stopped before
// their backends.
func (s *Server) InFront() bool { return defOf(s.rec.Kind).Backend != "" }

// RunDir is the directory of the server's own files: its data directory
// and generated configuration are in it.
func (s *Server) RunDir() string { return s.rec.RunDir }

// OwnsBackend tells whether the PgBouncer started its PostgreSQL itself
// (and stops it with itself).
func (s *Server) OwnsBackend() bool { return s.rec.OwnBackend }

// BackendName is the name of the PostgreSQL server a PgBouncer is in
// front of, or "".
func (s *Server) BackendName() string {
	if s.backend != nil {
		return s.backend.Name()
	}
	return s.rec.Backend
}

// Target is the dbarena target of the server: user bench and database
// bench on 127.0.0.1, the password as a target.Secret. A PgBouncer's URL
// selects pgx's exec query mode, which works behind transaction pooling.
// It is labelled with the server's name, or for a throw-away server with
// its kind.
func (s *Server) Target() target.Target {
	host := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.rec.Port))
	u := &url.URL{User: url.User(dbUser), Host: host, Path: "/" + dbName}
	if def := defOf(s.rec.Kind); def.TargetURL != nil {
		def.TargetURL(u)
	}
	label := s.rec.Name
	if s.rec.ThrowAway {
		label = string(s.rec.Kind)
	}
	return target.Target{Label: label, URL: u, Password: s.password}
}

// Alive tells whether the server runs (for a PgBouncer: and its
// PostgreSQL). A stopped server is not alive. When the process dbarena
// recorded has ended, the server may have been restarted from outside
// dbarena (pg_ctl restart, a kill and a start by hand, maybe on another
// port): Alive looks for the process that serves it now, through its PID
// file, its port and its programs in its directories, and records that
// process and its port (PID, Port and Target tell them from then on).
func (s *Server) Alive() bool {
	s.mu.Lock()
	alive := !s.stopped && (s.proc.alive() || s.rediscover(defOf(s.rec.Kind)))
	s.mu.Unlock()
	if !alive {
		return false
	}
	if s.InFront() && (s.backend == nil || !s.backend.Alive()) {
		return false
	}
	return true
}

// LogTail returns the last n lines of the server's log. For a PgBouncer
// whose PostgreSQL died, it is that server's log, which says why.
func (s *Server) LogTail(n int) string {
	if s.InFront() && s.backend != nil && s.proc.alive() && !s.backend.Alive() {
		return s.backend.LogTail(n)
	}
	return tail(s.LogFile(), n)
}

// Stop stops the server (a PgBouncer before the PostgreSQL it started
// itself, never a named one it is in front of) and removes its files: it
// is gone from List afterwards. It stops what actually serves the
// server, which after a restart from outside dbarena is not the process
// it started: the recorded process (known by its PID and start time),
// the process the server's own PID file names and the processes
// listening on its port, each only when it belongs to the server (it
// works in the server's directories or names a file there, and started
// before its PID file was written), and the processes that run one of
// its programs in its directories. Each gets the server's fast clean
// shutdown first (PostgreSQL SIGINT, MariaDB and PgBouncer SIGTERM) and
// SIGKILL, with every process of its group, after 30 s or when ctx ends;
// then Stop looks again, until nothing of the server runs or listens on
// its port. Only then are the files removed: when a process of the
// server cannot be stopped, Stop says so and keeps them. Stopping a
// stopped server does nothing.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	var errs []error
	if err := s.stopServing(ctx, defOf(s.rec.Kind), 30*time.Second); err != nil {
		errs = append(errs, fmt.Errorf("stopping %s %s: %w", s.rec.Kind, s.rec.Name, err))
	}
	if s.rec.OwnBackend && s.backend != nil {
		if err := s.backend.Stop(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 { // a process may still use the files
		return fmt.Errorf("%w; its files are kept in %s", errors.Join(errs...), s.dir)
	}
	s.stopped = true
	if s.rec.RunDir != "" && !strings.HasPrefix(s.rec.RunDir, s.dir+string(filepath.Separator)) {
		if err := os.RemoveAll(s.rec.RunDir); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(s.dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// labelName is label as a server name's start (Spec.Label): letters,
// digits, '-' and '_' kept, every other character '-', starting with a
// letter or digit, at most 56 characters so that "-" and six random hex
// digits fit in a name; "" when nothing is left.
func labelName(label string) string {
	b := []byte(label)
	for i, c := range b {
		if !(c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	n := strings.TrimLeft(string(b), "-_")
	if len(n) > 56 {
		n = n[:56]
	}
	return strings.TrimRight(n, "-_")
}

// randomPassword is 144 random bits in URL-safe base64: no character that
// needs quoting in a URL, SQL string or configuration file.
func randomPassword() string {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
