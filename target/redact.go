package target

import (
	"net/url"
	"sort"
	"strings"
)

// This file is dbarena's one redaction policy: what of a target URL, or of
// a message that may contain one, is a secret. Target.Redacted, the plan's
// copies of its source and error messages, and the command line's last
// line (engine.ScrubEnv) all use it.

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

// RedactURL is raw as it may be shown. A key=value connection string
// (IsKeyValue) keeps everything but the value of each secret key
// (IsSecretParam), quoted or not, which is replaced by "xxxxx". A URL is
// RedactedURL of it when it parses as a URL with user information or
// without any "@". Otherwise (it does not parse, or an "@" did not make
// user information of it, as in "postgres//u:pw@h") everything between
// its scheme's "://" (or its start) and its last "@" is replaced by
// "xxxxx", since that is where a password would be. A URL without
// secrets is returned as written.
func RedactURL(raw string) string {
	if IsKeyValue(raw) {
		return redactKeyValues(raw)
	}
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

// URLSecrets lists the secrets in raw (the password of its user
// information, the values of its secret query parameters; of a key=value
// string, the values of its secret keys as written and unquoted), each
// decoded and in its escaped forms, for Scrub. A URL that does not parse
// has none that can be told apart; show it through RedactURL instead.
func URLSecrets(raw string) []string {
	if IsKeyValue(raw) {
		var out []string
		for _, p := range keyValuePairs(raw) {
			if IsSecretParam(p.key) && p.value != "" {
				out = append(out, p.value, raw[p.start:p.end])
			}
		}
		return out
	}
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

// libpqKeys are the keys of a libpq connection string that make one of
// a single key=value pair without spaces (which else reads as a labelled
// target, "label=url").
var libpqKeys = map[string]bool{"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true}

// IsKeyValue reports whether s is a libpq-style key=value connection
// string ("host=h password='a b' dbname=d") rather than a URL: it has no
// "://", and it has pairs separated by spaces, or a key that holds a
// secret (IsSecretParam) or is one of libpq's host, hostaddr, port,
// dbname and user.
func IsKeyValue(s string) bool {
	if strings.Contains(s, "://") {
		return false
	}
	pairs := keyValuePairs(s)
	for _, p := range pairs {
		if !plainKey(p.key) {
			continue
		}
		if len(pairs) > 1 || strings.ContainsAny(strings.TrimSpace(s), " \t\n") || IsSecretParam(p.key) || libpqKeys[strings.ToLower(p.key)] {
			return true
		}
	}
	return false
}

// plainKey tells whether k is a key of a key=value string: letters,
// digits and underscores, not starting with a digit.
func plainKey(k string) bool {
	for i, c := range k {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return k != ""
}

// kvPair is one key=value pair of a key=value string: its key, where its
// value stands in the string (quotes included) and the value unquoted.
type kvPair struct {
	key        string
	start, end int
	value      string
}

// keyValuePairs reads s as libpq reads a connection string: pairs
// key=value, separated by spaces, with spaces allowed around "="; a value
// is a word or is quoted with single quotes, and a backslash takes the
// next character as it is. A word without "=" is skipped, and an
// unterminated quote runs to the end, so that whatever follows a secret
// key is taken as its value.
func keyValuePairs(s string) []kvPair {
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	var out []kvPair
	i := 0
	for {
		for i < len(s) && space(s[i]) {
			i++
		}
		if i >= len(s) {
			return out
		}
		ks := i
		for i < len(s) && !space(s[i]) && s[i] != '=' {
			i++
		}
		key := s[ks:i]
		j := i
		for j < len(s) && space(s[j]) {
			j++
		}
		if j >= len(s) || s[j] != '=' {
			if i == ks {
				i++ // not even a word: step over it
			}
			continue
		}
		j++
		for j < len(s) && space(s[j]) {
			j++
		}
		start := j
		var val strings.Builder
		if j < len(s) && s[j] == '\'' {
			for j++; j < len(s) && s[j] != '\''; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				val.WriteByte(s[j])
			}
			if j < len(s) {
				j++ // the closing quote
			}
		} else {
			for ; j < len(s) && !space(s[j]); j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				val.WriteByte(s[j])
			}
		}
		out = append(out, kvPair{key: key, start: start, end: j, value: val.String()})
		i = j
	}
}

// redactKeyValues is the key=value string s with the value of every
// secret key replaced by "xxxxx".
func redactKeyValues(s string) string {
	var b strings.Builder
	last := 0
	for _, p := range keyValuePairs(s) {
		if IsSecretParam(p.key) {
			b.WriteString(s[last:p.start])
			b.WriteString(Mask)
			last = p.end
		}
	}
	b.WriteString(s[last:])
	return b.String()
}
