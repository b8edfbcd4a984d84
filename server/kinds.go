package server

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// KindDef is everything the package's core needs to know of one kind of
// managed server. A package of its own under server/ defines a kind and
// registers it from its init with RegisterKind, so that the core never
// names a kind and adding one touches only that package and server/all.
type KindDef struct {
	// Kind is the kind's canonical name ("postgres").
	Kind Kind
	// Title is the server's name in messages ("PostgreSQL").
	Title string
	// Aliases are further names ParseKind takes ("postgresql", "pg").
	Aliases []string
	// Order places the kind in the lists shown to users (Kinds, the
	// messages that name every kind): lower first.
	Order int
	// Reserved are the settings dbarena sets itself (names in lower
	// case, '-' written as '_'), each with the flag to use instead, or
	// "". For a kind in front of another, its own settings without
	// OwnPrefix.
	Reserved map[string]string
	// Dashes: the server takes '-' and '_' alike in setting names.
	Dashes bool
	// RootUser is the user the server runs as when dbarena runs as root
	// (created as a system user when missing), for a server that refuses
	// to run as root; "" runs it as root itself.
	RootUser string
	// StopSignal asks for the server's fast clean shutdown.
	StopSignal syscall.Signal
	// Backend is the kind of server this kind runs in front of, or "".
	// Its settings named with OwnPrefix are its own; the others go to the
	// backend. Without a named backend (Spec.Backend) the core starts one
	// of its own for it, with those other settings, before Start runs.
	Backend   Kind
	OwnPrefix string
	// Find looks for the kind's programs (see FindPrograms): in
	// Spec.BinDir when given, else in the usual places. Missing ones are
	// an error wrapping ErrNotInstalled that names the package to
	// install.
	Find func(spec Spec) (Binaries, error)
	// Installs lists the installs of the kind's programs on the machine,
	// each with the version its server reports of itself, for a spec that
	// asks for a version (Spec.Version): the one in Spec.BinDir when
	// given, else those in the usual places and the project's caches
	// (CacheDirs). The core picks the newest that matches (PickInstall)
	// and hands its directory to Find as Spec.BinDir. Nil: the kind
	// takes no version. InstallHelp says how to get a version the
	// machine lacks, for the message that lists those it has.
	Installs    func(ctx context.Context, spec Spec) ([]Install, error)
	InstallHelp string
	// Programs are the programs whose paths Find takes from
	// Spec.Programs (its flag is --NAME); Validate refuses others.
	Programs []string
	// Start starts the server in its new state directory: it writes the
	// configuration, runs the set-up programs (Starting.Setup), starts
	// the server (Starting.Run), and reads every knob back
	// (Starting.SetSetting, a *KnobError for each one that differs).
	Start func(ctx context.Context, st *Starting) error
	// TargetURL sets the scheme and parameters of the server's target
	// URL, which has user bench, host 127.0.0.1:PORT and path /bench.
	TargetURL func(u *url.URL)
	// Describe is the program and arguments that list the settings the
	// server knows, and Parse reads the names from that list; nil when
	// CheckKnobs cannot check the kind's settings beforehand.
	Describe func(spec Spec) (prog string, args []string, err error)
	Parse    func(out []byte) []string
	// PartialList: the list leaves settings out, so only a near miss of
	// a listed name is a problem before the start.
	PartialList bool
	// PIDFile is the file the running server writes itself, whose first
	// line is the PID of its main process (PostgreSQL's postmaster.pid,
	// MariaDB's and PgBouncer's pid files), or "" for none; PIDFilePort
	// is the line (from 1) that holds its port, 0 for none. After a
	// restart from outside dbarena it names the process that serves the
	// server now; Stop trusts it only when that process belongs to the
	// server and started before the file was written (see Stop). Nil:
	// only the recorded process and the port are looked at.
	PIDFile     func(s *Server) string
	PIDFilePort int
}

// kinds are the registered kinds, in Order.
var kinds struct {
	mu   sync.RWMutex
	list []*KindDef
}

// RegisterKind makes a kind of managed server known to Start, ParseKind
// and every managed: target. Engine packages call it from their init. It
// panics (a programming error) when the definition lacks a Kind, Title,
// Find, Start, TargetURL or StopSignal, names a backend without
// OwnPrefix, or when its name or one of its aliases is taken.
func RegisterKind(d *KindDef) {
	if d.Kind == "" || d.Title == "" || d.Find == nil || d.Start == nil || d.TargetURL == nil || d.StopSignal == 0 {
		panic(fmt.Sprintf("server: incomplete kind definition %q: Kind, Title, Find, Start, TargetURL and StopSignal are required", d.Kind))
	}
	if (d.Backend != "") != (d.OwnPrefix != "") {
		panic(fmt.Sprintf("server: kind %q: Backend and OwnPrefix go together", d.Kind))
	}
	kinds.mu.Lock()
	defer kinds.mu.Unlock()
	names := append([]string{string(d.Kind)}, d.Aliases...)
	for i, n := range names {
		if n != strings.ToLower(n) || n == "" {
			panic(fmt.Sprintf("server: kind %q: name %q is not in lower case", d.Kind, n))
		}
		if other := lookupKind(n); other != nil || containsName(names[:i], n) {
			panic(fmt.Sprintf("server: kind name %q registered twice", n))
		}
	}
	kinds.list = append(kinds.list, d)
	sort.SliceStable(kinds.list, func(i, j int) bool { return kinds.list[i].Order < kinds.list[j].Order })
}

// lookupKind finds the kind named n (its name or an alias); the caller
// holds kinds.mu.
func lookupKind(n string) *KindDef {
	for _, d := range kinds.list {
		if n == string(d.Kind) || containsName(d.Aliases, n) {
			return d
		}
	}
	return nil
}

func containsName(list []string, n string) bool {
	for _, s := range list {
		if s == n {
			return true
		}
	}
	return false
}

// registered is the list of registered kinds, in Order.
func registered() []*KindDef {
	kinds.mu.RLock()
	defer kinds.mu.RUnlock()
	return kinds.list
}

// defOf returns the definition of kind k; an unknown kind (a record
// written by another version, or by a binary with other kinds) gets an
// empty one that stops with SIGTERM.
func defOf(k Kind) *KindDef {
	for _, d := range registered() {
		if d.Kind == k {
			return d
		}
	}
	return &KindDef{Kind: k, StopSignal: syscall.SIGTERM}
}

// known tells whether d is one of the kinds Start knows.
func (d *KindDef) known() bool { return d.Start != nil }

// Normal is a setting's name as the server compares names: lower case,
// '-' as '_' where the server takes both (Dashes).
func (d *KindDef) Normal(name string) string {
	name = strings.ToLower(name)
	if d.Dashes {
		name = strings.ReplaceAll(name, "-", "_")
	}
	return name
}

// knownSettings parses the list of settings the server's program prints.
func (d *KindDef) knownSettings(out []byte) map[string]bool {
	known := map[string]bool{}
	if d.Parse != nil {
		for _, n := range d.Parse(out) {
			known[d.Normal(n)] = true
		}
	}
	return known
}

// Kinds lists the kinds Start knows, in the order users see them.
func Kinds() []Kind {
	list := registered()
	out := make([]Kind, len(list))
	for i, d := range list {
		out[i] = d.Kind
	}
	return out
}

// kindNames is "postgres, mariadb, pgbouncer or mongo" (sep ", " and
// last " or ") or, with last ", ", "postgres, mariadb, pgbouncer, mongo",
// with the kinds server/all registers.
func kindNames(last string) string {
	list := registered()
	var b strings.Builder
	for i, d := range list {
		switch {
		case i == 0:
		case i == len(list)-1:
			b.WriteString(last)
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(d.Kind))
	}
	return b.String()
}

// rootUserTitles names the kinds that run as user name when dbarena runs
// as root: "PostgreSQL and PgBouncer".
func rootUserTitles(name string) string {
	var titles []string
	for _, d := range registered() {
		if d.RootUser == name {
			titles = append(titles, d.Title)
		}
	}
	return strings.Join(titles, " and ")
}
