package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Install is one install of a kind's programs on this machine, with the
// version its server program reports of itself.
type Install struct {
	// Dir is the directory of the programs (Spec.BinDir for them).
	Dir string
	// Version is the server's version, "18.6" or "15.18"; "" when the
	// program could not say (it does not run here).
	Version string
	// Problem says why Version is empty: the program's error.
	Problem string
}

// versionRE is a version as Spec.Version takes it: a major version
// ("18"), or more of it ("18.6", "9.6.24").
var versionRE = regexp.MustCompile(`^[0-9]{1,4}(\.[0-9]{1,4}){0,2}$`)

// VersionMatches tells whether version (a server's, "18.6") is the one
// asked for (want, "18" or "18.6"): want's parts are version's first
// parts. "18" matches 18.0 and 18.6, not 1.8 or 180.
func VersionMatches(version, want string) bool {
	if version == "" || want == "" {
		return false
	}
	have, asked := strings.Split(version, "."), strings.Split(want, ".")
	if len(asked) > len(have) {
		return false
	}
	for i, a := range asked {
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(have[i])
		if err1 != nil || err2 != nil || x != y {
			return false
		}
	}
	return true
}

// compareVersions orders two versions by their numbers: 9.6 < 15.2 <
// 15.10 < 18.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x - y
		}
	}
	return 0
}

// PickInstall is the install of installs whose version is want: the
// newest of those that match (VersionMatches), the first listed on a tie.
// None is an error wrapping ErrNotInstalled that names the version, every
// install found (version and directory) and, from help, how to get
// another (title names the server: "PostgreSQL").
func PickInstall(installs []Install, want, title, help string) (Install, error) {
	best := -1
	for i, in := range installs {
		if VersionMatches(in.Version, want) && (best < 0 || compareVersions(in.Version, installs[best].Version) > 0) {
			best = i
		}
	}
	if best >= 0 {
		return installs[best], nil
	}
	var found []string
	for _, in := range installs {
		v := in.Version
		if v == "" {
			v = "unknown version: " + in.Problem
		}
		found = append(found, fmt.Sprintf("%s (%s)", v, in.Dir))
	}
	what := "found " + strings.Join(found, ", ")
	if len(found) == 0 {
		what = "found none"
	}
	msg := fmt.Sprintf("version %s: no %s %s on this machine; %s", want, title, want, what)
	if help != "" {
		msg += "; " + help
	}
	return Install{}, fmt.Errorf("%w: %s", ErrNotInstalled, msg)
}

// withVersion returns spec with BinDir set to the install of the version
// it asks for (Spec.Version), found by def.Installs; spec as it is when it
// asks for none or the kind takes none (for the backend a kind in front
// of another starts, its callers pass backendSpec).
func withVersion(ctx context.Context, def *KindDef, spec Spec) (Spec, error) {
	if spec.Version == "" || def.Installs == nil {
		return spec, nil
	}
	installs, err := def.Installs(ctx, spec)
	if err != nil {
		return spec, err
	}
	in, err := PickInstall(installs, spec.Version, def.Title, def.InstallHelp)
	if err != nil {
		return spec, err
	}
	spec.BinDir = in.Dir
	return spec, nil
}

// versioned tells whether the kind, or the backend it starts for itself,
// takes a version.
func (d *KindDef) versioned() bool {
	return d.Installs != nil || d.Backend != "" && defOf(d.Backend).Installs != nil
}

// CheckVersion finds the install of the version spec asks for
// (Spec.Version) without starting anything: none is an error wrapping
// ErrNotInstalled that names the versions found and where (see
// PickInstall). A spec that asks for no version passes.
func CheckVersion(ctx context.Context, spec Spec) error {
	if spec.Version == "" {
		return nil
	}
	if spec.Getenv == nil {
		spec.Getenv = os.Getenv
	}
	def := defOf(spec.Kind)
	if def.Installs == nil && def.Backend != "" {
		spec, def = backendSpec(def, spec), defOf(def.Backend)
	}
	_, err := withVersion(ctx, def, spec)
	return err
}

// backendSpec is the spec whose programs the core finds for the backend
// a kind in front of another (def) starts for itself: the usual places,
// and the version asked for when the front kind takes none of its own.
func backendSpec(def *KindDef, spec Spec) Spec {
	b := Spec{Kind: def.Backend, Getenv: spec.Getenv}
	if def.Installs == nil {
		b.Version = spec.Version
	}
	return b
}

// CacheDirs are the directories where the project's scripts put the
// servers they fetch (scripts/testservers install), dbarena's own
// subdirectory of each: ${XDG_CACHE_HOME:-$HOME/.cache}/dbarena, the
// calling user's, then /var/cache/dbarena, the machine's (where root
// puts what servers running as another user must reach).
func CacheDirs(getenv func(string) string) []string {
	var dirs []string
	base := getenv("XDG_CACHE_HOME")
	if base == "" {
		if home := getenv("HOME"); home != "" {
			base = filepath.Join(home, ".cache")
		}
	}
	if base != "" {
		dirs = append(dirs, filepath.Join(base, "dbarena"))
	}
	return append(dirs, SystemCacheDir)
}

// SystemCacheDir is the machine's cache of fetched servers (CacheDirs).
const SystemCacheDir = "/var/cache/dbarena"
