package engine

import (
	"net/url"
	"sort"
	"strings"
)

// This file is dbarena's one redaction policy: what of a target URL, or of
// a message that may contain one, is a secret. Target.Redacted, the plan's
// copies of its source and error messages, and the command line's last
// line all use it.

// Mask is what a secret is replaced by.
const Mask = "xxxxx"

// IsSecretParam reports whether the URL query parameter k holds a secret:
// its name (in any case) contains "password", "passwd" or "secret", or is
// "pwd".
func IsSecretParam(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "password") || strings.Contains(k, "passwd") || k == "pwd" || strings.Contains(k, "secret")
}

// RedactedURL returns a copy of u in which the password of the user
// information and the value of every secret query parameter (IsSecretParam)
// are "xxxxx". u is not changed; nil gives nil.
func RedactedURL(u *url.URL) *url.URL {
	if u == nil {
		return nil
	}
	c := *u
	if c.User != nil {
		if _, ok := c.User.Password(); ok {
			c.User = url.UserPassword(c.User.Username(), Mask)
		}
	}
	if c.RawQuery != "" {
		q := c.Query()
		changed := false
		for k := range q {
			if IsSecretParam(k) {
				q.Set(k, Mask)
				changed = true
			}
		}
		if changed {
			c.RawQuery = q.Encode()
		}
	}
	return &c
}

// RedactURL is raw as it may be shown: RedactedURL of it when it parses
// as a URL with user information or without any "@". Otherwise (it does
// not parse, or an "@" did not make user information of it, as in
// "postgres//u:pw@h") everything between its scheme's "://" (or its start)
// and its last "@" is replaced by "xxxxx", since that is where a password
// would be. A URL without secrets is returned as written.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.User == nil && strings.Contains(raw, "@")) {
		at := strings.LastIndex(raw, "@")
		if at < 0 {
			return raw
		}
		start := 0
		if i := strings.Index(raw[:at], "://"); i >= 0 {
			start = i + 3
		}
		return raw[:start] + Mask + raw[at:]
	}
	if len(URLSecrets(raw)) == 0 {
		return raw // as written: nothing to hide
	}
	return RedactedURL(u).String()
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
	return Scrub(msg, secrets...)
}

// URLSecrets lists the secrets in raw (the password of its user
// information, the values of its secret query parameters), each decoded
// and in its escaped forms, for Scrub. A URL that does not parse has none
// that can be told apart; show it through RedactURL instead.
func URLSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s, url.QueryEscape(s), url.PathEscape(s))
		}
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			add(pw)
		}
	}
	for k, vs := range u.Query() {
		if IsSecretParam(k) {
			for _, v := range vs {
				add(v)
			}
		}
	}
	return out
}

// Scrub replaces every occurrence of each secret in msg by "xxxxx". Empty
// secrets are ignored; longer ones are replaced first, so that a secret
// containing another is hidden whole.
func Scrub(msg string, secrets ...string) string {
	if len(secrets) == 0 {
		return msg
	}
	sorted := make([]string, 0, len(secrets))
	for _, s := range secrets {
		if s != "" {
			sorted = append(sorted, s)
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	for _, s := range sorted {
		msg = strings.ReplaceAll(msg, s, Mask)
	}
	return msg
}
