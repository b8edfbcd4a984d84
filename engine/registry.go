package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Registration is everything shared code knows about one engine. Each
// engine package registers exactly one, from its init:
//
//	func init() {
//		engine.Register(engine.Registration{
//			Name:        "postgres",
//			Aliases:     []string{"postgresql"},
//			Family:      engine.FamilySQL,
//			PasswordEnv: "PGPASSWORD",
//			Open:        Open,
//		})
//	}
//
// Nothing outside the engine's package lists these facts: ParseTarget,
// Open, the command line's help and its last-line password scrub all read
// them from the registry.
type Registration struct {
	// Name is the engine's canonical URL scheme, the name its Engine and
	// Dialect report ("postgres", "mysql", "sqlite", "mongodb").
	Name string
	// Aliases are further URL schemes that mean the same engine;
	// ParseTarget rewrites them to Name ("postgresql" → "postgres",
	// "mariadb" → "mysql").
	Aliases []string
	// Schemes are further URL schemes the engine serves under their own
	// name, kept in the URL because they mean something else to the
	// driver ("mongodb+srv": look the hosts up in DNS).
	Schemes []string
	// Family is the language the engine speaks.
	Family Family
	// Dialect is the engine's dialect, whose Capabilities say what the
	// engine can do before any target of it is opened.
	Dialect Dialect
	// PasswordEnv is the environment variable the engine's own client
	// tools read the password from (PGPASSWORD, MYSQL_PWD), or "" for
	// none. ParseTarget reads it when neither the URL nor a password file
	// gives a password.
	PasswordEnv string
	// Open opens an Engine for a target of one of the engine's schemes.
	Open Opener
	// ServerStats, when not nil, is the engine's server metrics: its
	// statistics source, how its process is found on this host and the
	// metrics computed from them (package sysmon samples them).
	ServerStats *ServerStats
	// Settings says which of the engine's settings share a common name
	// with other engines' and which are incidental (SettingRoles).
	Settings SettingRoles
}

// registry is the process's set of engines, filled by the engine packages'
// init functions before main runs and only read afterwards.
var registry struct {
	mu       sync.RWMutex
	byName   map[string]*Registration // by Name
	byScheme map[string]*Registration // by Name, alias and scheme
}

// Register makes an engine available. It panics (a programming error) when
// the registration has no Name, Family, Dialect or Open, when its
// Dialect's name, kind or family are not the registration's, when its
// ServerStats are incomplete, or when one of its schemes or aliases is
// already taken.
func Register(r Registration) {
	if r.Name == "" || r.Family == "" || r.Open == nil {
		panic(fmt.Sprintf("engine: incomplete registration %q: Name, Family, Dialect and Open are required", r.Name))
	}
	if r.ServerStats != nil {
		if msg := r.ServerStats.check(); msg != "" {
			panic("engine: registration of " + r.Name + ": " + msg)
		}
	}
	if r.Dialect == nil {
		panic(fmt.Sprintf("engine: incomplete registration %q: Name, Family, Dialect and Open are required", r.Name))
	}
	if c := r.Dialect.Capabilities(); r.Dialect.Name() != r.Name || string(c.Kind) != r.Name || c.Family != r.Family || r.Dialect.Family() != r.Family {
		panic(fmt.Sprintf("engine: registration %q: its dialect says name %q, kind %q, family %q", r.Name, r.Dialect.Name(), c.Kind, c.Family))
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.byScheme == nil {
		registry.byName = map[string]*Registration{}
		registry.byScheme = map[string]*Registration{}
	}
	all := append(append([]string{r.Name}, r.Aliases...), r.Schemes...)
	for i, s := range all {
		if s == "" {
			panic("engine: empty scheme in the registration of " + r.Name)
		}
		if _, dup := registry.byScheme[s]; dup || containsString(all[:i], s) {
			panic("engine: scheme registered twice: " + s)
		}
	}
	reg := r
	reg.Aliases = append([]string(nil), r.Aliases...)
	reg.Schemes = append([]string(nil), r.Schemes...)
	registry.byName[r.Name] = &reg
	for _, s := range all {
		registry.byScheme[s] = &reg
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Lookup returns the registration of the engine that serves scheme (its
// name, an alias or one of its schemes).
func Lookup(scheme string) (Registration, bool) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	r, ok := registry.byScheme[scheme]
	if !ok {
		return Registration{}, false
	}
	return *r, true
}

// Registrations lists every registered engine, sorted by name.
func Registrations() []Registration {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	out := make([]Registration, 0, len(registry.byName))
	for _, r := range registry.byName {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Schemes lists the URL schemes a target may have after ParseTarget (every
// engine's name and further schemes, not the aliases ParseTarget
// rewrites), sorted.
func Schemes() []string {
	var out []string
	for _, r := range Registrations() {
		out = append(out, r.Name)
		out = append(out, r.Schemes...)
	}
	sort.Strings(out)
	return out
}

// PasswordEnvs lists the registered engines' password variables, sorted,
// without duplicates.
func PasswordEnvs() []string {
	var out []string
	for _, r := range Registrations() {
		if r.PasswordEnv != "" && !containsString(out, r.PasswordEnv) {
			out = append(out, r.PasswordEnv)
		}
	}
	sort.Strings(out)
	return out
}

// canonicalScheme is the scheme a target of scheme s has after ParseTarget:
// the engine's name for an alias, s itself otherwise (unknown schemes
// included: Open refuses them).
func canonicalScheme(s string) string {
	if r, ok := Lookup(s); ok && containsString(r.Aliases, s) {
		return r.Name
	}
	return s
}

// Open opens the engine that serves t's URL scheme.
func Open(ctx context.Context, t Target, opts Options) (Engine, error) {
	r, ok := Lookup(t.URL.Scheme)
	if !ok {
		return nil, &TargetError{Target: t.Redacted(), Field: "scheme", Err: fmt.Errorf("%w %q (known: %v)", ErrUnknownScheme, t.URL.Scheme, Schemes())}
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	return r.Open(ctx, t, opts)
}
