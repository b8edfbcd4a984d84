package plan

import (
	"bytes"
	"net/url"
	"strings"
)

// secretParam tells whether a URL query parameter holds a secret, as
// engine.Target.Redacted decides.
func secretParam(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "password") || strings.Contains(k, "passwd") || k == "pwd" || strings.Contains(k, "secret")
}

// redactURL is raw without the password of its user information and with
// any password-like query parameter replaced by "xxxxx". A URL that does
// not parse keeps what comes before its last "@" out.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if at := strings.LastIndex(raw, "@"); at >= 0 {
			return "xxxxx" + raw[at:]
		}
		return raw
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for k := range q {
			if secretParam(k) {
				q.Set(k, "xxxxx")
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// secrets are the passwords and secret parameters in raw, decoded and as
// written.
func secrets(raw string) []string {
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
		if secretParam(k) {
			for _, v := range vs {
				add(v)
			}
		}
	}
	return out
}

// scrubPassword replaces every secret of the URL raw in msg by "xxxxx".
func scrubPassword(msg, raw string) string {
	for _, s := range secrets(raw) {
		msg = strings.ReplaceAll(msg, s, "xxxxx")
	}
	return msg
}

// redactSource is the plan file with every target URL's secrets replaced
// by "xxxxx", to be copied into the results directory.
func redactSource(data []byte, targets []Target) []byte {
	out := data
	for _, t := range targets {
		for _, s := range secrets(t.URL) {
			if len(s) >= 1 {
				out = bytes.ReplaceAll(out, []byte(s), []byte("xxxxx"))
			}
		}
	}
	return out
}
