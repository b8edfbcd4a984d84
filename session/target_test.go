package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/workload"
)

func noEnv(string) string { return "" }

// An empty URL is the embedded default: default.db in the data
// directory, which is made, labelled sqlite and prepared on first use.
func TestResolveEmbeddedDefault(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	r, err := session.Resolve(context.Background(), session.TargetSpec{}, session.Env{Getenv: noEnv, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Engine.Close()
	if !r.Fresh || r.Server != nil || r.Target.Label != "sqlite" || r.Engine.Name() != "sqlite" {
		t.Errorf("resolved %+v, engine %s; want the fresh sqlite default", r, r.Engine.Name())
	}
	if _, err := os.Stat(filepath.Join(home, "default.db")); err != nil {
		t.Errorf("the default database is not in the data directory: %v", err)
	}
}

// A target of the user's is not fresh and keeps its label.
func TestResolveLabelled(t *testing.T) {
	u := "mine=sqlite://" + filepath.Join(t.TempDir(), "x.db")
	r, err := session.Resolve(context.Background(), session.TargetSpec{URL: u}, session.Env{Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Engine.Close()
	if r.Fresh || r.Target.Label != "mine" {
		t.Errorf("fresh %v, label %q; want the user's target labelled mine", r.Fresh, r.Target.Label)
	}
}

// Bad input is refused before anything opens: no data directory for the
// default, a password file for a managed server (which has its own), a
// negative connect timeout, and what Rewrite refuses.
func TestResolveRefuses(t *testing.T) {
	ctx := context.Background()
	if _, err := session.Resolve(ctx, session.TargetSpec{}, session.Env{Getenv: noEnv}); !errors.Is(err, session.ErrNoDataDir) {
		t.Errorf("no data directory: %v, want ErrNoDataDir", err)
	}
	var oe *workload.OptionError
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := session.Resolve(ctx, session.TargetSpec{URL: "managed:postgres", PasswordFile: pw}, session.Env{Getenv: noEnv, Home: t.TempDir()})
	if !errors.As(err, &oe) || oe.Flag != "password-file" || oe.Value != pw {
		t.Errorf("managed with a password file: %v, want an option error naming --password-file", err)
	}
	_, err = session.Resolve(ctx, session.TargetSpec{URL: "sqlite:///x.db", ConnectTimeout: -1}, session.Env{Getenv: noEnv})
	if !errors.As(err, &oe) || oe.Flag != "connect-timeout" {
		t.Errorf("negative connect timeout: %v, want an option error naming --connect-timeout", err)
	}
	bad := errors.New("no")
	_, err = session.Resolve(ctx, session.TargetSpec{URL: "sqlite:///x.db", Rewrite: func(*engine.Target) error { return bad }}, session.Env{Getenv: noEnv})
	if !errors.Is(err, bad) {
		t.Errorf("rewrite refused: %v", err)
	}
}
