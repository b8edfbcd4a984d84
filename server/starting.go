package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dbarena/dbarena/target"
)

// The user and database every managed server has; its Target logs in
// as User to Database.
const (
	User     = dbUser
	Database = dbName
)

// Binaries are the programs a kind needs, found (KindDef.Find) before
// anything runs.
type Binaries struct {
	// Dir is the directory of the programs; it leads the PATH of the
	// server's processes.
	Dir string
	// Path maps each program's name (the first of its names given to
	// FindPrograms) to its path.
	Path map[string]string
}

// FindPrograms finds each program (under any of its names, the first
// being the one used in messages and in Path's keys) in binDir, or, when
// binDir is "", on pathEnv (a PATH value) and in the sbin directories.
// Missing ones are an error wrapping ErrNotInstalled that names the
// server (what) and the Debian package to install (pkg).
func FindPrograms(binDir, pathEnv, what, pkg string, progs ...[]string) (Binaries, error) {
	found := map[string]string{}
	var missing []string
	for _, names := range progs {
		var p string
		for _, n := range names {
			if binDir != "" {
				if c := filepath.Join(binDir, n); IsExecutable(c) {
					p = c
				}
			} else if c, err := LookPath(n, pathEnv); err == nil {
				p = c
			}
			if p != "" {
				break
			}
		}
		if p == "" {
			missing = append(missing, names[0])
			continue
		}
		found[names[0]] = p
	}
	if len(missing) > 0 {
		where := "on PATH or in /usr/sbin"
		if binDir != "" {
			where = "in " + binDir
		}
		return Binaries{}, fmt.Errorf("%w: %s: no %s %s; install the Debian package %s (apt-get install %s), or name the directory of its programs (--bin-dir)",
			ErrNotInstalled, what, strings.Join(missing, ", "), where, pkg, pkg)
	}
	return Binaries{Dir: filepath.Dir(found[progs[0][0]]), Path: found}, nil
}

// Starting is a server being started, as its kind's Start function sees
// it: the spec, the programs found, the state the core keeps, and the
// means to write the server's files and run its programs as the user
// the server runs as. It is used by one goroutine, during Start only.
type Starting struct {
	s    *Server
	spec Spec
	bins Binaries
	acct account
}

// Spec is what was asked for. For a kind in front of another, its Knobs
// include the backend's (see Backend).
func (st *Starting) Spec() Spec { return st.spec }

// Name is the server's name.
func (st *Starting) Name() string { return st.s.rec.Name }

// Program is the path of one of the kind's programs (Binaries.Path).
func (st *Starting) Program(name string) string { return st.bins.Path[name] }

// Env is the environment of the server's programs: a plain PATH (the
// programs' directory first) and the C locale, so that their messages
// are the English ones this package reads.
func (st *Starting) Env() []string { return childEnv(st.bins.Dir) }

// RunDir is the directory for the server's own files (data directory,
// generated configuration), owned by the user the server runs as.
func (st *Starting) RunDir() string { return st.s.rec.RunDir }

// SetDataDir records the server's data directory (for a server without
// one, the directory of its configuration).
func (st *Starting) SetDataDir(dir string) { st.s.rec.DataDir = dir }

// DataDir is the data directory SetDataDir recorded.
func (st *Starting) DataDir() string { return st.s.rec.DataDir }

// LogFile is the server's log, which its standard output and error go to.
func (st *Starting) LogFile() string { return st.s.LogFile() }

// Password is the password of the server's user (User).
func (st *Starting) Password() target.Secret { return st.s.password }

// SetPassword makes pw the server's password and writes it to its
// password file: a server in front of another takes the backend's.
func (st *Starting) SetPassword(pw target.Secret) error {
	st.s.password = pw
	return os.WriteFile(st.s.PasswordFile(), []byte(pw.Reveal()+"\n"), 0o600)
}

// Backend is the server this one runs in front of (its own, started by
// the core before Start, or the one Spec.Backend names); nil for a kind
// without a backend.
func (st *Starting) Backend() *Server { return st.s.backend }

// AsRoot tells whether the server runs as root (and must be told so:
// MariaDB's user = root).
func (st *Starting) AsRoot() bool { return st.acct.uid == 0 }

// Port is the port the server was started on (by Run).
func (st *Starting) Port() int { return st.s.rec.Port }

// SetVersion records the server's version string ("PostgreSQL 15.18").
func (st *Starting) SetVersion(v string) { st.s.rec.Version = v }

// SetSetting records a knob's value as the server reports it (name as
// the knob was given).
func (st *Starting) SetSetting(name, value string) {
	if st.s.rec.Settings == nil {
		st.s.rec.Settings = map[string]string{}
	}
	st.s.rec.Settings[name] = value
}

// WriteFile writes a file for the server, owned by the user it runs as
// and readable by that user only.
func (st *Starting) WriteFile(path, content string) error {
	return writeOwned(st.acct, path, content)
}

// Setup runs a set-up program (initdb, mariadb-install-db) to its end,
// in RunDir as the server's user with Env, its output in the server's
// setup log. A failure is explained from that output: the knobs its
// error lines name (*KnobError), and its last error lines.
func (st *Starting) Setup(ctx context.Context, prog string, args ...string) error {
	setupLog := filepath.Join(st.s.dir, setupLogFile)
	if err := runSetup(ctx, st.acct, st.s.rec.RunDir, setupLog, st.Env(), prog, args...); err != nil {
		return st.s.setupError(st.spec, setupLog, err)
	}
	return nil
}

// Run starts the server's program on Spec.Port, or on a free port (on
// another one when that was taken between the choice and the bind), and
// waits until ready succeeds. command gives the program and its
// arguments for a port; it runs in RunDir as the server's user, in a
// session of its own, with Env, its output appended to LogFile. A
// process that ends before it is ready is explained from its log (the
// knobs it names as *KnobErrors, a port in use).
func (st *Starting) Run(ctx context.Context, command func(port int) (prog string, args []string, err error), ready func(context.Context) error) error {
	launch := func(port int) (*process, error) {
		prog, args, err := command(port)
		if err != nil {
			return nil, err
		}
		st.s.rec.Command = append([]string{prog}, args...)
		return spawn(st.acct, st.s.rec.RunDir, st.s.LogFile(), st.Env(), prog, args...)
	}
	return st.s.run(ctx, st.spec, launch, ready)
}
