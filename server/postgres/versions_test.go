package postgres

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/server"
)

func TestParseVersion(t *testing.T) {
	for out, want := range map[string]string{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n": "15.18",
		"postgres (PostgreSQL) 18.6\n":                           "18.6",
		"postgres (PostgreSQL) 9.6.24\n":                         "9.6.24",
		"postgres (PostgreSQL) 19devel\n":                        "19",
		"postgres: error while loading shared libraries":         "",
		"": "",
	} {
		if got := ParseVersion(out); got != want {
			t.Errorf("ParseVersion(%q) = %q, want %q", out, got, want)
		}
	}
}

// fakeInstall makes dir/initdb and dir/postgres, whose --version says
// version.
func fakeInstall(t *testing.T, dir, version string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"initdb", "postgres"} {
		script := "#!/bin/sh\necho '" + p + " (PostgreSQL) " + version + "'\n"
		if err := os.WriteFile(filepath.Join(dir, p), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// The installs are Debian's (newest first), the caches' builds, then
// PATH's, each once, with the version its postgres reports; --bin-dir
// alone when given.
func TestInstalls(t *testing.T) {
	root := t.TempDir()
	fakeInstall(t, filepath.Join(root, "lib", "9.6", "bin"), "9.6.24")
	fakeInstall(t, filepath.Join(root, "lib", "15", "bin"), "15.18 (Debian 15.18-0+deb12u1)")
	cached := filepath.Join(root, "cache", "dbarena", "postgres-18.6.3", CachedBin)
	fakeInstall(t, cached, "18.6")
	other := filepath.Join(root, "other")
	fakeInstall(t, other, "17.2")
	if err := os.MkdirAll(filepath.Join(root, "lib", "16", "bin"), 0o755); err != nil { // no programs
		t.Fatal(err)
	}
	old := debianGlob
	debianGlob = filepath.Join(root, "lib", "*", "bin")
	t.Cleanup(func() { debianGlob = old })
	env := map[string]string{"XDG_CACHE_HOME": filepath.Join(root, "cache"), "PATH": other + ":" + filepath.Join(root, "lib", "15", "bin")}
	getenv := func(k string) string { return env[k] }

	all, err := installs(context.Background(), server.Spec{Kind: ServerKind, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	var got []server.Install
	for _, in := range all {
		if strings.HasPrefix(in.Dir, server.SystemCacheDir+"/") {
			continue // the machine's own cache, which this test does not fill
		}
		got = append(got, in)
	}
	want := []server.Install{
		{Dir: filepath.Join(root, "lib", "15", "bin"), Version: "15.18"},
		{Dir: filepath.Join(root, "lib", "9.6", "bin"), Version: "9.6.24"},
		{Dir: cached, Version: "18.6"},
		{Dir: other, Version: "17.2"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("installs =\n %+v\nwant\n %+v", got, want)
	}

	got, err = installs(context.Background(), server.Spec{Kind: ServerKind, Getenv: getenv, BinDir: other})
	if err != nil || !reflect.DeepEqual(got, []server.Install{{Dir: other, Version: "17.2"}}) {
		t.Errorf("--bin-dir: %+v, %v", got, err)
	}
	empty := filepath.Join(root, "lib", "16", "bin")
	got, _ = installs(context.Background(), server.Spec{Kind: ServerKind, Getenv: getenv, BinDir: empty})
	if len(got) != 1 || got[0].Version != "" || got[0].Problem == "" {
		t.Errorf("--bin-dir without programs: %+v", got)
	}

	// Through the core: the cached 18.6 for 18, Debian's for 15.
	for version, dir := range map[string]string{"18": cached, "15": filepath.Join(root, "lib", "15", "bin"), "9": filepath.Join(root, "lib", "9.6", "bin")} {
		if err := server.CheckVersion(context.Background(), server.Spec{Kind: ServerKind, Version: version, Getenv: getenv}); err != nil {
			t.Errorf("version %s (%s): %v", version, dir, err)
		}
	}
	if err := server.CheckVersion(context.Background(), server.Spec{Kind: ServerKind, Version: "16", Getenv: getenv}); err == nil {
		t.Errorf("version 16 found, but its directory has no programs")
	}
}
