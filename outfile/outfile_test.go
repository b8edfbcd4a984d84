package outfile_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/outfile"
)

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}

// A regular file is written whole with the mode asked for, whatever the
// umask and whatever mode it had, and nothing else is left in its
// directory.
func TestWriteRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	for _, perm := range []fs.FileMode{0o644, 0o600} {
		if err := outfile.WriteFile(context.Background(), "--out", p, perm, []byte("data "+perm.String())); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil || string(b) != "data "+perm.String() {
			t.Fatalf("read %q, %v", b, err)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode() != perm {
			t.Errorf("mode %v (%v), want %v", fi.Mode(), err, perm)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("directory holds %q, want the file alone", got)
	}
}

// A write that fails, or whose context ends, leaves the file as it was
// and no temporary file behind.
func TestWriteFailsLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := outfile.Write(context.Background(), "--out", p, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	var oe *outfile.Error
	if !errors.Is(err, boom) || !errors.As(err, &oe) || err.Error() != "--out "+p+": boom" {
		t.Errorf("error %v, want boom naming the flag and path", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = outfile.Write(ctx, "--out", p, 0o644, func(w io.Writer) error {
		cancel()
		_, err := io.WriteString(w, "new")
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("file holds %q, want it untouched", b)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("directory holds %q, want the file alone", got)
	}
}

// A symlink (a chain of them, relative or absolute, dangling or not) is
// written through to its final target, in the target's directory; the
// links stay links.
func TestWriteThroughSymlinks(t *testing.T) {
	for _, exists := range []bool{true, false} {
		linkDir, midDir, targetDir := t.TempDir(), t.TempDir(), t.TempDir()
		target := filepath.Join(targetDir, "target")
		if exists {
			if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		mid := filepath.Join(midDir, "mid")
		if err := os.Symlink(target, mid); err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(linkDir, mid)
		if err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(linkDir, "link")
		if err := os.Symlink(rel, link); err != nil {
			t.Fatal(err)
		}
		if err := outfile.Check("-o", link); err != nil {
			t.Fatal(err)
		}
		if err := outfile.WriteFile(context.Background(), "-o", link, 0o644, []byte("new")); err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{link, mid} {
			if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("%s is no longer a symlink (%v)", l, err)
			}
		}
		if b, err := os.ReadFile(target); err != nil || string(b) != "new" {
			t.Errorf("target holds %q (%v), want new", b, err)
		}
		for _, d := range []string{linkDir, midDir, targetDir} {
			if got := names(t, d); len(got) != 1 {
				t.Errorf("%s holds %q, want one entry", d, got)
			}
		}
	}
}

// Directories, sockets and block devices are refused by Check and Write,
// naming the flag, the path and what it is; a symlink to one as well.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(t.TempDir(), "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		dir:  "--out " + dir + ": is a directory; name the file to write",
		link: "--out " + link + ": is a directory; name the file to write",
		loop: "--out " + loop + ": too many levels of symbolic links",
	} {
		for _, err := range []error{
			outfile.Check("--out", path),
			outfile.WriteFile(context.Background(), "--out", path, 0o644, []byte("x")),
		} {
			if err == nil || err.Error() != want {
				t.Errorf("error %v, want %q", err, want)
			}
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symlink (%v)", link, err)
	}
}

// Check creates nothing and reports where a file cannot be created.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "gone", "x"), dangling); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "new"):       "",
		file:                            "",
		filepath.Join(dir, "no", "new"): "-o " + filepath.Join(dir, "no", "new") + ": directory " + filepath.Join(dir, "no") + " does not exist",
		filepath.Join(file, "new"):      "-o " + filepath.Join(file, "new") + ": " + file + " is not a directory",
		dangling:                        "-o " + dangling + ": directory " + filepath.Join(dir, "gone") + " does not exist",
	} {
		err := outfile.Check("-o", path)
		if (err == nil) != (want == "") || err != nil && err.Error() != want {
			t.Errorf("Check(%s) = %v, want %q", path, err, want)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"dangling", "file"}) {
		t.Errorf("directory holds %q after the checks", got)
	}
}

// An output that is an input, however either is named, is refused; one
// that is not, or does not exist yet, is not.
func TestCheckNotInput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	in := filepath.Join(dir, "in.json")
	other := filepath.Join(dir, "other.json")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(t.TempDir(), "hard")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out    string
		inputs []string
		refuse bool
	}{
		{in, []string{in}, true},
		{"./in.json", []string{in}, true},
		{in, []string{"in.json"}, true},
		{link, []string{other, in}, true},
		{hard, []string{in}, true},
		{in, []string{link}, true},
		{other, []string{in, link, hard}, false},
		{filepath.Join(dir, "new.json"), []string{in}, false},
		{in, []string{filepath.Join(dir, "missing.json")}, false},
	} {
		err := outfile.CheckNotInput("-o", tc.out, tc.inputs)
		if (err != nil) != tc.refuse || err != nil && !strings.HasPrefix(err.Error(), "-o "+tc.out+": is the input ") {
			t.Errorf("CheckNotInput(%s, %q) = %v, want refused %v", tc.out, tc.inputs, err, tc.refuse)
		}
	}
}
