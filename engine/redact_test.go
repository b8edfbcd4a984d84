package engine_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
)

func TestIsSecretParam(t *testing.T) {
	for k, want := range map[string]bool{
		"password": true, "sslpassword": true, "PASSWORD": true, "db_passwd": true, "pwd": true,
		"client_secret": true, "sslmode": false, "user": false, "pwdx": false, "w": false,
	} {
		if got := engine.IsSecretParam(k); got != want {
			t.Errorf("IsSecretParam(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://bench:pw@h:5432/db?sslmode=disable", "postgres://bench:xxxxx@h:5432/db?sslmode=disable"},
		{"postgres://bench@h/db", "postgres://bench@h/db"},
		{"mysql://u@h/db?password=p&tls=true", "mysql://u@h/db?password=xxxxx&tls=true"},
		{"managed:postgres?shared_buffers=1GB", "managed:postgres?shared_buffers=1GB"},
		{"%zz://u:hunter2@h", "%zz://xxxxx@h"},
		{"postgres//u:hunter2@h", "xxxxx@h"},
		{"not a url", "not a url"},
	} {
		if got := engine.RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScrub(t *testing.T) {
	if got := engine.Scrub("pw pw2 x", "pw", "", "pw2"); got != "xxxxx xxxxx x" {
		t.Errorf("Scrub = %q: the longer secret must be hidden whole", got)
	}
	if got := engine.Scrub("nothing", nil...); got != "nothing" {
		t.Errorf("Scrub without secrets = %q", got)
	}
	env := func(k string) string {
		return map[string]string{"PGPASSWORD": "pg-secret", "MYSQL_PWD": "my-secret", "OTHER": "other-secret"}[k]
	}
	got := engine.ScrubEnv("a pg-secret b my-secret c other-secret", env)
	if want := "a xxxxx b xxxxx c other-secret"; got != want {
		t.Errorf("ScrubEnv = %q, want %q", got, want)
	}
	if got := engine.ScrubEnv("a b c", func(string) string { return "b" }); got != "a b c" {
		t.Errorf("ScrubEnv hid a one-letter value: %q", got)
	}
}

// The callers of the one policy agree: a target's Redacted, RedactURL (the
// plan's shown URLs), Scrub with URLSecrets (the plan's messages and its
// copied source) and ScrubEnv (the command line's last line) hide the same
// secrets and show the same rest.
func TestRedactionAgrees(t *testing.T) {
	const raw = "postgres://bench:pw-user%21@127.0.0.1:5432/bench?password=pw-param&sslpassword=pw-ssl&sslmode=disable"
	secrets := []string{"pw-user!", "pw-user%21", "pw-param", "pw-ssl"}
	tg, err := engine.ParseTarget(raw, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	const query = "password=xxxxx&sslmode=disable&sslpassword=xxxxx"
	outputs := map[string]string{
		"Target.Redacted": tg.Redacted(),
		"RedactURL":       engine.RedactURL(raw),
		"Scrub":           engine.Scrub("cannot reach "+raw, engine.URLSecrets(raw)...),
		"ScrubEnv": engine.ScrubEnv("cannot reach "+raw, func(k string) string {
			return map[string]string{"PGPASSWORD": "pw-user!"}[k]
		}),
	}
	for name, out := range outputs {
		for _, s := range secrets {
			if name == "ScrubEnv" && s != "pw-user!" {
				continue // it knows the variable's value only
			}
			if strings.Contains(out, s) {
				t.Errorf("%s shows %q: %s", name, s, out)
			}
		}
	}
	for _, name := range []string{"Target.Redacted", "RedactURL"} {
		u, err := url.Parse(outputs[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if u.RawQuery != query || u.Host != "127.0.0.1:5432" || u.User.Username() != "bench" {
			t.Errorf("%s = %s, want user bench, host 127.0.0.1:5432, query %s", name, outputs[name], query)
		}
	}
	if got := outputs["Scrub"]; got != "cannot reach postgres://bench:xxxxx@127.0.0.1:5432/bench?password=xxxxx&sslpassword=xxxxx&sslmode=disable" {
		t.Errorf("Scrub = %s", got)
	}
}
