// Package server starts, finds and stops managed servers: throw-away
// local PostgreSQL, MariaDB, PgBouncer and MongoDB servers that dbarena
// runs from the machine's own binaries, with the settings (knobs) a benchmark asks
// for.
//
// The package names no kind itself: each kind is a KindDef that a
// package of its own registers from its init (RegisterKind) — PostgreSQL
// and PgBouncer in server/postgres, MariaDB in server/mariadb, MongoDB (a
// one-node replica set) in server/mongo — so a
// binary knows the kinds it imports (server/all). The package and its
// kinds import no engine, and no engine imports them.
//
// Start makes a new server in dbarena's data directory
// (Spec.Home/servers/NAME/): initdb or mariadb-install-db, a generated
// configuration with the knobs, a free port on 127.0.0.1 (or Spec.Port),
// a random password for user bench (in the file PasswordFile names, mode
// 0600; never printed), and a database bench. It waits until the server
// accepts connections and reads every knob back from it (pg_settings,
// SHOW GLOBAL VARIABLES, SHOW CONFIG): a knob the server refuses, does not
// know, or reports with another value fails the start with a *KnobError
// naming knob and value, and nothing is left behind. A PgBouncer runs in
// transaction mode in front of a named PostgreSQL (Spec.Backend) or one
// it starts itself.
//
// PostgreSQL and PgBouncer refuse to run as root: as root they run as
// user postgres (created as a system user when missing), MariaDB as root
// with --user=root, mongod as root. Otherwise every server runs as the caller. Servers run
// in sessions of their own: they outlive the process that started them
// until Stop, here or in another process after Lookup.
//
// Stop ends what actually serves a server, also after a restart from
// outside dbarena: the process it started, the one the server's own PID
// file names and those listening on its port, each only when it belongs
// to the server; the files go only when nothing of it runs. A server
// started for one command (Spec.Owned) records its dbarena process, and
// Reap stops and removes those whose process ended without stopping
// them.
//
// A Spec may ask for a version (Spec.Version: "18", "18.6"): the kind
// lists the installs the machine has with the versions they report
// (KindDef.Installs: for PostgreSQL, Debian's, the builds the project's
// scripts cache in CacheDirs, PATH's, or --bin-dir's), PickInstall takes
// the newest that matches, and a version none has is an error listing
// them before anything starts. A server started for a labelled target
// is named after the label (Spec.Label).
//
// (*Server).Target is the dbarena target of a server, its password a
// target.Secret; ParseManaged reads the managed: targets of the command
// line (managed:postgres?shared_buffers=1GB, managed:pg1).
//
// The package runs the servers' programs directly (os/exec), never a
// shell or scripts/testservers, and reads no process globals but PATH
// and TMPDIR through Spec.Getenv (os.Getenv by default), and
// XDG_CACHE_HOME and HOME for CacheDirs; server/mongo reads DBARENA_MONGOD
// there too.
package server
