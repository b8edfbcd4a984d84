package server

import (
	"bufio"
	"bytes"
	"context"
	"net/url"
	"strings"
	"syscall"
)

// kindDef is everything the package's core needs to know of one kind of
// server. Each kind defines its own in its file (postgres.go, mariadb.go,
// pgbouncer.go); kinds lists them, so that the core never switches on a
// kind's name and adding a kind is its file plus one line there.
type kindDef struct {
	kind Kind
	// title is the server's name in messages ("PostgreSQL").
	title string
	// aliases are further names ParseKind takes ("postgresql", "pg").
	aliases []string
	// reserved are the settings dbarena sets itself (names in lower case,
	// '-' written as '_'), each with the flag to use instead, or "". For
	// a kind in front of another, its own settings without ownPrefix.
	reserved map[string]string
	// dashes: the server takes '-' and '_' alike in setting names.
	dashes bool
	// asRoot: started by root, the server runs as root itself (MariaDB's
	// user = root) rather than as an unprivileged account.
	asRoot bool
	// stopSignal asks for the server's fast clean shutdown.
	stopSignal syscall.Signal
	// backend is the kind of server this kind runs in front of
	// (PgBouncer: PostgreSQL), or "". Its settings named with ownPrefix
	// are its own; the others go to the backend.
	backend   Kind
	ownPrefix string
	// find looks for the kind's programs (findBinaries).
	find func(spec Spec) (binaries, error)
	// start starts the server in its new state directory (see start).
	start func(ctx context.Context, s *Server, spec Spec, bins binaries, a account) error
	// targetURL sets the scheme and parameters of the server's target URL.
	targetURL func(u *url.URL)
	// describe is the program and arguments that list the settings the
	// server knows, and parse reads that list (keys as normal names); nil
	// when CheckKnobs cannot check the kind's settings beforehand.
	describe func(spec Spec) (prog string, args []string, err error)
	parse    func(d *kindDef, sc *bufio.Scanner, known map[string]bool)
	// partialList: the list leaves settings out, so only a near miss of
	// a listed name is a problem before the start.
	partialList bool
}

// kinds are the kinds Start knows, in the order they are listed to users.
var kinds []*kindDef

func init() { kinds = []*kindDef{postgresKind, mariadbKind, pgbouncerKind} }

// defOf returns the definition of kind k; an unknown kind (a record
// written by another version) gets an empty one that stops with SIGTERM.
func defOf(k Kind) *kindDef {
	for _, d := range kinds {
		if d.kind == k {
			return d
		}
	}
	return &kindDef{kind: k, stopSignal: syscall.SIGTERM}
}

// known tells whether d is one of the kinds Start knows.
func (d *kindDef) known() bool { return d.start != nil }

// normal is a setting's name as the server compares names: lower case,
// '-' as '_' where the server takes both.
func (d *kindDef) normal(name string) string {
	name = strings.ToLower(name)
	if d.dashes {
		name = strings.ReplaceAll(name, "-", "_")
	}
	return name
}

// knownSettings parses the list of settings the server's program prints.
func (d *kindDef) knownSettings(out []byte) map[string]bool {
	known := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	if d.parse != nil {
		d.parse(d, sc, known)
	}
	return known
}

// Kinds lists the kinds Start knows.
func Kinds() []Kind {
	out := make([]Kind, len(kinds))
	for i, d := range kinds {
		out[i] = d.kind
	}
	return out
}

// kindNames is "postgres, mariadb or pgbouncer" (sep ", " and last " or ")
// or, with last ", ", "postgres, mariadb, pgbouncer".
func kindNames(last string) string {
	var b strings.Builder
	for i, d := range kinds {
		switch {
		case i == 0:
		case i == len(kinds)-1:
			b.WriteString(last)
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(d.kind))
	}
	return b.String()
}
