package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/target"
)

// Target is one database under test (target.Target): a URL with an
// optional label, the password kept apart so that printing a Target, or
// its URL, can never reveal it.
type Target = target.Target

// Secret is a string that formats as "xxxxx" everywhere (target.Secret).
type Secret = target.Secret

// NewSecret wraps s.
func NewSecret(s string) Secret { return target.NewSecret(s) }

// ParseTarget parses "url" or "label=url"; a libpq key=value string
// (target.IsKeyValue) is refused, its secrets redacted. A scheme registered as an alias
// is rewritten to its engine's name ("postgresql" → "postgres"). Passwords
// are taken, in order of preference, from the URL, from passwordFile (when
// not empty), or from the engine's registered password variable
// (Registration.PasswordEnv: PGPASSWORD, MYSQL_PWD) read through getenv.
// An unknown scheme is not an error here: Open refuses it.
func ParseTarget(s, passwordFile string, getenv func(string) string) (Target, error) {
	var t Target
	if target.IsKeyValue(s) {
		return t, &TargetError{Target: target.RedactURL(s), Field: "url", Err: fmt.Errorf("%w: a key=value connection string, not a URL: want scheme://[user@]host[:port]/database (the password in the URL, in --password-file or in the engine's variable)", ErrBadTarget)}
	}
	raw := s
	if i := strings.Index(s, "="); i > 0 && !strings.Contains(s[:i], "://") && !strings.Contains(s[:i], ":") {
		t.Label, raw = s[:i], s[i+1:]
	}
	if port, ok := badPort(raw); ok {
		return t, &TargetError{Target: target.RedactURL(raw), Field: "port", Err: fmt.Errorf("%w: port %q: want a number from 1 to 65535", ErrBadTarget, port)}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		// url.Parse errors repeat the whole input, password included.
		return t, &TargetError{Target: target.RedactURL(raw), Field: "url", Err: fmt.Errorf("%w: want scheme://[user[:password]@]host[:port]/database or sqlite:///path", ErrBadTarget)}
	}
	u.Scheme = canonicalScheme(u.Scheme)
	if pw, ok := u.User.Password(); ok {
		t.Password = NewSecret(pw)
		u.User = url.User(u.User.Username())
	}
	if passwordFile != "" {
		// A file named is always read: a wrong name is reported even
		// where it would not be used.
		b, err := os.ReadFile(passwordFile)
		if err != nil {
			return t, &TargetError{Target: u.Redacted(), Field: "password-file", Err: fmt.Errorf("%w: cannot read %q: %v", ErrBadTarget, passwordFile, unwrapPath(err))}
		}
		if t.Password.IsSet() {
			return t, &TargetError{Target: u.Redacted(), Field: "password-file", Err: fmt.Errorf("%w: %q: the URL has a password too; give it one way", ErrBadTarget, passwordFile)}
		}
		t.Password = NewSecret(strings.TrimRight(string(b), "\r\n"))
	}
	if !t.Password.IsSet() && getenv != nil {
		if r, ok := Lookup(u.Scheme); ok && r.PasswordEnv != "" {
			t.Password = NewSecret(getenv(r.PasswordEnv))
		}
	}
	t.URL = u
	if t.Label == "" {
		t.Label = u.Scheme
	}
	return t, nil
}

// scrubEnvMin is the shortest password variable value ScrubEnv hides: a
// value of one or two characters would take letters out of every word of
// the message.
const scrubEnvMin = 3

// ScrubEnv hides in msg the values of every registered engine's password
// variable (PasswordEnvs) read through getenv: a last line of defence
// behind the engines' own redaction, for messages about to be printed.
// Values shorter than three characters are left alone.
func ScrubEnv(msg string, getenv func(string) string) string {
	var secrets []string
	for _, k := range PasswordEnvs() {
		if v := getenv(k); len(v) >= scrubEnvMin {
			secrets = append(secrets, v)
		}
	}
	return target.Scrub(msg, secrets...)
}

// badPort finds the port of a URL's host ("h:99999", "[::1]:x") and
// returns it when it is not a number from 1 to 65535. URLs without a
// "//" authority, or with several hosts (MongoDB's "h1:1,h2:2"), are
// left to their engine.
func badPort(raw string) (string, bool) {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return "", false
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	if strings.Contains(rest, ",") {
		return "", false
	}
	if i := strings.LastIndex(rest, "]"); i >= 0 {
		rest = rest[i+1:]
	}
	i := strings.LastIndex(rest, ":")
	if i < 0 {
		return "", false
	}
	port := rest[i+1:]
	if n, err := strconv.Atoi(port); err == nil && n >= 1 && n <= 65535 {
		return "", false
	}
	if port == "" {
		return "", false // "h:" is "h"
	}
	return port, true
}

// unwrapPath drops a *fs.PathError's operation and path, which the
// message names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
