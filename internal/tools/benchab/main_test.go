package main

import (
	"strings"
	"testing"
)

// The command line benchab prints keeps everything but a password.
func TestShownRedactsPasswords(t *testing.T) {
	got := shown([]string{"run", "oltp_point_select", "--target", "postgres://bench:S3cret@127.0.0.1:5432/db", "--threads", "8"})
	if strings.Contains(got, "S3cret") || !strings.Contains(got, "--target postgres://bench:") || !strings.Contains(got, "--threads 8") {
		t.Errorf("shown = %q", got)
	}
}
