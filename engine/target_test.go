package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in, label, redacted, password string
		env                           map[string]string
	}{
		{in: "postgres://bench:secret@127.0.0.1:5432/bench", label: "postgres", redacted: "postgres://bench@127.0.0.1:5432/bench", password: "secret"},
		{in: "pg16=postgresql://bench:secret@h/db?sslmode=disable", label: "pg16", redacted: "postgres://bench@h/db?sslmode=disable", password: "secret"},
		{in: "mariadb://u@h:3306/db", label: "mysql", redacted: "mysql://u@h:3306/db", password: "envpw", env: map[string]string{"MYSQL_PWD": "envpw"}},
		{in: "postgres://u@h/db", label: "postgres", redacted: "postgres://u@h/db", password: "pgpw", env: map[string]string{"PGPASSWORD": "pgpw", "MYSQL_PWD": "no"}},
		{in: "lite=sqlite:///tmp/x.db", label: "lite", redacted: "sqlite:///tmp/x.db"},
		{in: "postgres://u@h/db?password=qs", label: "postgres", redacted: "postgres://u@h/db?password=xxxxx"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseTarget(tc.in, "", env(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if got.Label != tc.label || got.Redacted() != tc.redacted || got.Password.Reveal() != tc.password {
				t.Errorf("got label %q url %q password %q; want %q %q %q", got.Label, got.Redacted(), got.Password.Reveal(), tc.label, tc.redacted, tc.password)
			}
		})
	}
}

func TestPasswordFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(f, []byte("filepw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ParseTarget("postgres://u@h/db", f, env(map[string]string{"PGPASSWORD": "envpw"}))
	if err != nil {
		t.Fatal(err)
	}
	if got.Password.Reveal() != "filepw" {
		t.Errorf("password = %q, want the file's", got.Password.Reveal())
	}
	_, err = ParseTarget("postgres://u@h/db", filepath.Join(t.TempDir(), "none"), nil)
	if err == nil || !strings.Contains(err.Error(), "password-file") {
		t.Errorf("missing password file: %v, want an error naming password-file", err)
	}
}

// However a Target is printed, the password does not appear.
func TestPasswordNeverPrinted(t *testing.T) {
	const pw = "s3cr3t-Pa55"
	tg, err := ParseTarget("pg=postgres://bench:"+pw+"@127.0.0.1:5432/bench", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		tg.String(), tg.Redacted(), tg.URL.String(), fmt.Sprint(tg), fmt.Sprintf("%v %+v %#v %s", tg, tg, tg, tg.Password),
	} {
		if strings.Contains(s, pw) {
			t.Errorf("password printed in %q", s)
		}
	}
}

func TestParseTargetErrors(t *testing.T) {
	for _, in := range []string{"not a url", "://x", "postgres//u:pw@h", "%zz://u:hunter2@h"} {
		t.Run(in, func(t *testing.T) {
			_, err := ParseTarget(in, "", nil)
			if !errors.Is(err, ErrBadTarget) {
				t.Fatalf("ParseTarget(%q) = %v, want ErrBadTarget", in, err)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}
