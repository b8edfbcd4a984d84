package cli

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// A pseudo-terminal that reports 0 columns (a new one, as script(1) can
// leave it) is no terminal for progress bars: its prepares print plain
// lines; once it reports a width, bars are drawn.
func TestZeroColumnTerminal(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pts.Close()
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 0, Col: 0}); err != nil {
		t.Fatal(err)
	}
	if isTerminal(pts) {
		t.Error("a terminal of 0 columns is taken for one bars can be drawn on")
	}
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 100}); err != nil {
		t.Fatal(err)
	}
	if !isTerminal(pts) {
		t.Error("a terminal of 100 columns is not taken for one")
	}
	if f, err := os.CreateTemp(t.TempDir(), "out"); err != nil || isTerminal(f) {
		t.Errorf("a file is taken for a terminal (%v)", err)
	}
}
