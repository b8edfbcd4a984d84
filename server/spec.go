package server

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Kind is the kind of a managed server, as its package registers it
// (RegisterKind): "postgres", "mariadb", "pgbouncer" with the kinds
// dbarena ships (server/all).
type Kind string

// ParseKind turns a kind's name, or one of its aliases (postgresql, pg,
// mysql, bouncer), into a Kind. An unknown name is an error wrapping
// ErrUnknownKind.
func ParseKind(s string) (Kind, error) {
	l := strings.ToLower(s)
	kinds.mu.RLock()
	d := lookupKind(l)
	kinds.mu.RUnlock()
	if d != nil {
		return d.Kind, nil
	}
	return "", fmt.Errorf("%w %q: want %s", ErrUnknownKind, s, kindNames(" or "))
}

// Scheme is the URL scheme of managed targets: managed:postgres?knob=value.
const Scheme = "managed"

// VersionParam is the parameter of a managed target that names the
// server's version rather than a setting: managed:postgres?version=18
// (Spec.Version).
const VersionParam = "version"

// Knob is one server setting as it is written into the server's
// configuration file: postgresql.conf, my.cnf's [mariadbd] section or
// pgbouncer.ini's [pgbouncer] section.
type Knob struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// String is "name=value".
func (k Knob) String() string { return k.Name + "=" + k.Value }

// ParseKnob parses "name=value" (the value may contain '=').
func ParseKnob(s string) (Knob, error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok {
		return Knob{}, fmt.Errorf("%w: setting %q: want name=value", ErrBadSpec, s)
	}
	return Knob{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)}, nil
}

// Spec says which server to start and how.
type Spec struct {
	// Kind is the kind of server.
	Kind Kind
	// Name names the server in Home: dbarena server stop NAME, a target
	// managed:NAME. Empty means a throw-away server: Start picks a name
	// like postgres-3f9a1c, and its Target is labelled with the kind.
	Name string
	// Label, for a server without a Name, is what its generated name
	// starts with (a plan's target label, so that server list shows
	// it): the label itself while no server has that name, else
	// label-<random>; a character a name cannot have becomes '-'.
	// Empty: the kind's name.
	Label string
	// Version is the server's version: a major version ("18") or an
	// exact one ("18.6"), picked among the installs the kind finds
	// (KindDef.Installs); the newest that matches starts. Empty: the
	// kind's usual choice (for PostgreSQL, the newest Debian install).
	// A kind in front of another without installs of its own passes it
	// to the backend it starts for itself.
	Version string
	// Knobs are the settings the server starts with. Each is read back
	// from the running server; one it does not know, or reports with
	// another value, fails Start.
	Knobs []Knob
	// Port is the TCP port on 127.0.0.1; 0 picks a free one.
	Port int
	// BinDir is where the server's programs are; empty means the usual
	// places (see Kind).
	BinDir string
	// Programs names the paths of some of the kind's programs, by name
	// ("mongod"), ahead of BinDir and the usual places.
	Programs map[string]string
	// Home is dbarena's data directory: the server's files go into
	// Home/servers/NAME/. It is required.
	Home string
	// Backend names the started PostgreSQL server a PgBouncer goes in
	// front of. Empty: the PgBouncer starts a PostgreSQL of its own with
	// the knobs that are not PgBouncer's (KindDef.OwnPrefix), and stops
	// it with itself.
	Backend string
	// Timeout bounds the wait for the server to accept connections;
	// 0 means one minute.
	Timeout time.Duration
	// Getenv reads PATH when looking for programs; nil means os.Getenv.
	Getenv func(string) string
	// Owned: the server belongs to the calling process, which stops it
	// before it ends (a managed: target started for one command). Its
	// record names the process (PID and start time); should the process
	// end without stopping it (SIGKILL), Reap stops and removes it.
	Owned bool
}

// nameRE is what a server name may look like: it is a directory name, a
// URL's opaque part and a label.
var nameRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]{0,62}$`)

// knobNameRE is what a setting's name may look like in every
// configuration file format dbarena writes.
var knobNameRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_.-]{0,127}$`)

// Validate reports every problem with the spec at once, each naming the
// field and its value; each error wraps ErrBadSpec (an unknown kind also
// ErrUnknownKind). It does not look at the machine: missing programs and
// ports in use are Start's to find.
func (s Spec) Validate() []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrBadSpec}, args...)...))
	}
	def := defOf(s.Kind)
	switch {
	case def.known():
	case s.Kind == "":
		bad("no server kind: want %s", kindNames(" or "))
	default:
		if _, err := ParseKind(string(s.Kind)); err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", ErrBadSpec, err))
		} else {
			bad("kind %q: use its canonical name %s", s.Kind, mustKind(s.Kind))
		}
	}
	if s.Name != "" {
		if !nameRE.MatchString(s.Name) {
			bad("name %q: want letters, digits, '-' and '_', up to 63, starting with a letter or digit", s.Name)
		} else if _, err := ParseKind(s.Name); err == nil {
			bad("name %q: a kind's name cannot name a server (managed:%s means a new one)", s.Name, s.Name)
		}
	}
	if s.Home == "" {
		bad("no data directory (Home) for the server's files")
	}
	switch v := s.Version; {
	case v == "":
	case !versionRE.MatchString(v):
		bad("version %q: want a major version (18) or an exact one (18.6)", v)
	case def.known() && !def.versioned():
		bad("version %s: %s servers take no version", v, s.Kind)
	case def.Installs == nil && s.Backend != "":
		bad("version %s: %s %s runs already, with its own version", v, defOf(def.Backend).Title, s.Backend)
	}
	if s.Port < 0 || s.Port > 65535 {
		bad("port %d: want 1 to 65535, or 0 for a free one", s.Port)
	}
	if s.Timeout < 0 {
		bad("timeout %s: must not be negative", s.Timeout)
	}
	if s.Backend != "" && def.Backend == "" {
		bad("backend %q: only %s servers have one", s.Backend, frontKinds())
	}
	for prog, path := range s.Programs {
		if !containsName(def.Programs, prog) && def.known() {
			bad("--%s %s: %s servers take no such program", prog, path, s.Kind)
		}
	}
	seen := map[string]bool{}
	for _, k := range s.Knobs {
		what := "setting " + k.String()
		kd, name := def, k.Name
		if def.Backend != "" {
			if n, ok := strings.CutPrefix(k.Name, def.OwnPrefix); ok {
				name = n
			} else {
				kd = defOf(def.Backend) // the backend's
				if s.Backend != "" {
					bad("%s: it would go to %s server %s, which runs already; %s's own settings are named %sNAME", what, kd.Title, s.Backend, def.Title, def.OwnPrefix)
					continue
				}
			}
		}
		switch {
		case !knobNameRE.MatchString(name):
			bad("%s: a setting's name is letters, digits, '_', '.' and '-', starting with a letter", what)
			continue
		case k.Value == "":
			bad("%s: no value (want name=value)", what)
		case strings.ContainsAny(k.Value, "\n\r\x00"):
			bad("setting %s: the value has a line break or NUL", k.Name)
		}
		key := kd.Normal(k.Name)
		if seen[key] {
			bad("%s: set twice", what)
		}
		seen[key] = true
		norm := strings.ReplaceAll(strings.ToLower(name), "-", "_")
		if flag, ok := kd.Reserved[norm]; ok {
			if flag != "" {
				bad("%s: dbarena sets it (use %s)", what, flag)
			} else {
				bad("%s: dbarena sets it itself", what)
			}
		}
	}
	return errs
}

// frontKinds names the kinds that run in front of another server.
func frontKinds() string {
	var names []string
	for _, d := range registered() {
		if d.Backend != "" {
			names = append(names, string(d.Kind))
		}
	}
	return strings.Join(names, ", ")
}

func mustKind(k Kind) Kind {
	c, _ := ParseKind(string(k))
	return c
}

// ParseManaged parses a managed target:
//
//	managed:postgres?shared_buffers=1GB&max_wal_size=4GB   a new PostgreSQL
//	managed:mariadb?innodb_buffer_pool_size=1G             a new MariaDB
//	managed:pgbouncer?shared_buffers=1GB                   a new PgBouncer in front of a new PostgreSQL
//	managed:mongo?wiredTigerCacheSizeGB=1                  a new MongoDB (a one-node replica set)
//	managed:postgres?version=18&shared_buffers=1GB         a new PostgreSQL 18 (Spec.Version)
//	managed:pg1                                            the started server named pg1
//
// ("managed://postgres?…" is accepted too). For a new server the Spec has
// its Kind, its Version (the parameter version, VersionParam) and Knobs
// (the other parameters), in the order given, and no Name; for a started one
// only its Name (Kind empty), for Lookup. Values are URL-unescaped
// (%20 for a space, %26 for '&'). Problems wrap ErrBadSpec.
func ParseManaged(raw string) (Spec, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != Scheme {
		return Spec{}, fmt.Errorf("%w: %q: want managed:KIND?name=value&… (KIND %s) or managed:NAME", ErrBadSpec, raw, kindNames(" or "))
	}
	what := u.Opaque
	if what == "" {
		what = u.Host
	}
	if what == "" || (u.Path != "" && u.Path != "/") || u.User != nil || u.Fragment != "" {
		return Spec{}, fmt.Errorf("%w: %q: want managed:KIND?name=value&… or managed:NAME", ErrBadSpec, raw)
	}
	kind, kerr := ParseKind(what)
	if kerr != nil {
		if u.RawQuery != "" {
			return Spec{}, fmt.Errorf("%w: managed:%s: %w; a started server (managed:NAME) takes no settings", ErrBadSpec, what, kerr)
		}
		if !nameRE.MatchString(what) {
			return Spec{}, fmt.Errorf("%w: managed:%s: neither a server kind (%s) nor a server name", ErrBadSpec, what, kindNames(", "))
		}
		return Spec{Name: what}, nil
	}
	spec := Spec{Kind: kind}
	versions := 0
	for _, part := range strings.Split(u.RawQuery, "&") {
		if part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		n, err1 := url.QueryUnescape(name)
		v, err2 := url.QueryUnescape(value)
		if !ok || err1 != nil || err2 != nil {
			return Spec{}, fmt.Errorf("%w: managed:%s: setting %q: want name=value (URL-escaped)", ErrBadSpec, what, part)
		}
		if n == VersionParam {
			if versions++; versions > 1 {
				return Spec{}, fmt.Errorf("%w: managed:%s: version given twice (%s, %s)", ErrBadSpec, what, spec.Version, v)
			}
			spec.Version = v
			continue
		}
		spec.Knobs = append(spec.Knobs, Knob{Name: n, Value: v})
	}
	return spec, nil
}

// Errors of this package; match them with errors.Is.
var (
	// ErrBadSpec marks a Spec or managed target that cannot work: unknown
	// kind, malformed or reserved setting, bad name or port.
	ErrBadSpec = errors.New("bad managed server spec")
	// ErrUnknownKind marks a server kind Start does not know.
	ErrUnknownKind = errors.New("unknown server kind")
	// ErrNotInstalled marks missing server programs; the message names
	// the Debian package to install.
	ErrNotInstalled = errors.New("not installed")
	// ErrPortInUse marks a port another process listens on.
	ErrPortInUse = errors.New("port in use")
	// ErrKnob marks a setting the server refused, does not know, or
	// reports with another value (see KnobError).
	ErrKnob = errors.New("setting not applied")
	// ErrStart marks a server that did not come up (see StartError).
	ErrStart = errors.New("server did not start")
	// ErrNotFound marks a server name with no server in Home.
	ErrNotFound = errors.New("no such managed server")
	// ErrExists marks a name already taken by a server in Home.
	ErrExists = errors.New("managed server exists")
)

// KnobError is a setting the server did not take as given.
type KnobError struct {
	Kind Kind
	Knob Knob
	// Problem says what went wrong: the server's own message, "unknown
	// setting", or the value the server reports.
	Problem string
}

func (e *KnobError) Error() string {
	return fmt.Sprintf("%s setting %s: %s", e.Kind, e.Knob, e.Problem)
}

// Unwrap makes the error match ErrKnob.
func (e *KnobError) Unwrap() error { return ErrKnob }

// StartError is a server that did not come up. Nothing of it is left: its
// process is stopped and its files removed.
type StartError struct {
	Kind Kind
	Name string
	// Err is the cause: KnobErrors (joined), a port in use, a timeout, a
	// program that failed.
	Err error
	// Log is the end of the server's log (or of its set-up program's
	// output), possibly empty.
	Log string
}

func (e *StartError) Error() string {
	msg := fmt.Sprintf("managed %s %s did not start: %v", e.Kind, e.Name, e.Err)
	if e.Log != "" {
		msg += "\n  last lines of its log:\n    " + strings.ReplaceAll(strings.TrimRight(e.Log, "\n"), "\n", "\n    ")
	}
	return msg
}

// Unwrap makes the error match ErrStart and its cause.
func (e *StartError) Unwrap() []error { return []error{ErrStart, e.Err} }
