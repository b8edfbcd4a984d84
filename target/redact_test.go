package target_test

import (
	"testing"

	"github.com/dbarena/dbarena/target"
)

func TestIsSecretParam(t *testing.T) {
	for k, want := range map[string]bool{
		"password": true, "sslpassword": true, "PASSWORD": true, "db_passwd": true, "pwd": true,
		"client_secret": true, "sslmode": false, "user": false, "pwdx": false, "w": false,
	} {
		if got := target.IsSecretParam(k); got != want {
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
		if got := target.RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScrub(t *testing.T) {
	if got := target.Scrub("pw pw2 x", "pw", "", "pw2"); got != "xxxxx xxxxx x" {
		t.Errorf("Scrub = %q: the longer secret must be hidden whole", got)
	}
	if got := target.Scrub("nothing", nil...); got != "nothing" {
		t.Errorf("Scrub without secrets = %q", got)
	}
}
