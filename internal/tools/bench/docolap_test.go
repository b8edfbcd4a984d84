package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// Every bad option of docolap is reported at once, before anything runs.
func TestDocolapUsage(t *testing.T) {
	var stderr strings.Builder
	e := env{stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" },
		args: []string{"docolap", "--events", "0", "--load-threads", "-1", "--engines", "mysql", "--rounds", "0", "--workload", "tpch"}}
	err := mainErr(context.Background(), e)
	if !errors.Is(err, errUsage) {
		t.Fatalf("mainErr = %v, want errUsage", err)
	}
	for _, want := range []string{"--events 0", "--load-threads -1", `"mysql" is not postgres or mongo`, "--rounds 0", `--workload "tpch"`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "--time") {
		t.Errorf("docolap has no --time, yet:\n%s", stderr.String())
	}
}
