package plan

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/target"
)

// The plan redacts as package target does: the URLs it shows, the
// messages it records and the copy of its source hide the password of the
// user information and of the password=/sslpassword= parameters alike.
func TestRedactionAsTarget(t *testing.T) {
	const raw = "postgres://bench:pw-user@127.0.0.1/bench?password=pw-param&sslpassword=pw-ssl&sslmode=disable"
	secrets := []string{"pw-user", "pw-param", "pw-ssl"}
	if got, want := redactURL(raw), target.RedactURL(raw); got != want {
		t.Errorf("redactURL = %s, target.RedactURL = %s", got, want)
	}
	msg := "cannot reach " + raw
	if got, want := scrubPassword(msg, raw), target.Scrub(msg, target.URLSecrets(raw)...); got != want {
		t.Errorf("scrubPassword = %s, target.Scrub = %s", got, want)
	}
	src := "targets:\n  - {label: pg, url: \"" + raw + "\"}\n"
	got := string(redactSource([]byte(src), []Target{{Label: "pg", URL: raw}}))
	if want := "targets:\n  - {label: pg, url: \"" + target.Scrub(raw, target.URLSecrets(raw)...) + "\"}\n"; got != want {
		t.Errorf("redactSource =\n%s\nwant\n%s", got, want)
	}
	for _, out := range []string{redactURL(raw), scrubPassword(msg, raw), got} {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%q shows %s", out, s)
			}
		}
	}
}
