// Package target is a database under test as dbarena names it: a URL
// with a label, its password kept apart (Secret) so that printing a
// Target can never reveal it, and dbarena's one redaction policy for
// URLs and for messages that may contain one (redact.go).
//
// The package imports nothing of dbarena: engines open Targets, managed
// servers make them, plans and the command line redact with it. Package
// engine parses targets (engine.ParseTarget), which needs its registry.
package target

import (
	"net/url"
	"strings"
)

// Target is one database under test: a URL with an optional label. The
// password is kept apart from the URL so that printing a Target, or its URL,
// can never reveal it.
type Target struct {
	// Label names the target in output; it defaults to the engine scheme.
	Label string
	// URL is the target's URL without any password.
	URL *url.URL
	// Password comes from the URL, the environment or a file. It is never
	// printed: Target's String and GoString redact it.
	Password Secret
}

// Secret is a string that formats as "xxxxx" everywhere (fmt, %v, %#v, JSON
// through fmt), so it cannot slip into output by accident. Reveal returns it.
type Secret struct{ s string }

// NewSecret wraps s.
func NewSecret(s string) Secret { return Secret{s} }

// Reveal returns the secret itself, for handing to a driver.
func (s Secret) Reveal() string { return s.s }

// IsSet reports whether the secret is non-empty.
func (s Secret) IsSet() bool { return s.s != "" }

func (s Secret) String() string {
	if s.s == "" {
		return ""
	}
	return Mask
}

// GoString redacts for %#v.
func (s Secret) GoString() string { return `engine.Secret{"xxxxx"}` }

// MarshalText redacts for encoders.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Redacted is the URL as it may be printed or stored: no password, any
// secret query parameter (IsSecretParam) replaced by "xxxxx", and what
// stands before an "@" that is no user information (the opaque
// "u:pw@tcp(h)/db" of a Go MySQL DSN) as well (RedactURL).
func (t Target) Redacted() string {
	if t.URL == nil {
		return ""
	}
	u := *t.URL
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if strings.Contains(u.Opaque, "@") {
		return RedactURL(u.String())
	}
	return RedactedURL(&u).String()
}

// String is "label=redacted-url".
func (t Target) String() string { return t.Label + "=" + t.Redacted() }

// GoString redacts for %#v.
func (t Target) GoString() string { return "engine.Target{" + t.String() + "}" }

// Username is the URL's user name, or "".
func (t Target) Username() string {
	if t.URL == nil || t.URL.User == nil {
		return ""
	}
	return t.URL.User.Username()
}

// Host is the URL's host:port, or "".
func (t Target) Host() string {
	if t.URL == nil {
		return ""
	}
	return t.URL.Host
}
