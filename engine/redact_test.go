package engine_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/target"
)

// ScrubEnv hides the registered engines' password variables, not others,
// and no value of one or two characters.
func TestScrubEnv(t *testing.T) {
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
		"RedactURL":       target.RedactURL(raw),
		"Scrub":           target.Scrub("cannot reach "+raw, target.URLSecrets(raw)...),
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

// A libpq key=value string is redacted key by key: the values of secret
// keys, quoted, escaped or spaced around "=", become xxxxx; the rest
// stays as written.
func TestRedactKeyValue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"host=127.0.0.1 password=SECRET dbname=x", "host=127.0.0.1 password=xxxxx dbname=x"},
		{"host=h password='a b SECRET' dbname=x", "host=h password=xxxxx dbname=x"},
		{`host=h password='it\'s SECRET' dbname=x`, "host=h password=xxxxx dbname=x"},
		{`password=SE\ CRET host=h`, "password=xxxxx host=h"},
		{"host=h password = SECRET dbname=x", "host=h password = xxxxx dbname=x"},
		{"host=h password='unterminated SECRET dbname=x", "host=h password=xxxxx"},
		{"pg=host=h sslpassword=SECRET", "pg=host=h sslpassword=xxxxx"},
		{"password=SECRET", "password=xxxxx"},
		{"host=h junk password=SECRET", "host=h junk password=xxxxx"},
		{"host=h user=u", "host=h user=u"},
	} {
		if !target.IsKeyValue(tc.in) {
			t.Errorf("IsKeyValue(%q) = false", tc.in)
		}
		if got := target.RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := target.Scrub("at "+tc.in, target.URLSecrets(tc.in)...); got != "at "+tc.want {
			t.Errorf("Scrub(%q) with its secrets = %q, want %q", tc.in, got, "at "+tc.want)
		}
		if _, err := engine.ParseTarget(tc.in, "", nil); !errors.Is(err, engine.ErrBadTarget) || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "key=value") {
			t.Errorf("ParseTarget(%q) = %v, want ErrBadTarget refusing a key=value string, without its password", tc.in, err)
		}
	}
	// Targets that are no key=value strings.
	for _, s := range []string{"pg=postgres://u@h/db?password=x", "managed:postgres?shared_buffers=1GB", "pg=managed:postgres", "sqlite:rel/x.db", "not a url", "label=sqlite:x.db"} {
		if target.IsKeyValue(s) {
			t.Errorf("IsKeyValue(%q) = true", s)
		}
	}
}

// A target whose URL is opaque (a Go MySQL DSN, "u:pw@tcp(h)/db", reads as
// scheme u) shows nothing before its "@".
func TestRedactedOpaqueTarget(t *testing.T) {
	tg, err := engine.ParseTarget("u:hunter2@tcp(127.0.0.1:3306)/db", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tg.Redacted(); strings.Contains(got, "hunter2") || got != "xxxxx@tcp(127.0.0.1:3306)/db" {
		t.Errorf("Redacted = %q", got)
	}
	if tg, _ := engine.ParseTarget("sqlite:///tmp/a@b.db", "", nil); tg.Redacted() != "sqlite:///tmp/a@b.db" {
		t.Errorf("Redacted of a path with an @ = %q", tg.Redacted())
	}
}
