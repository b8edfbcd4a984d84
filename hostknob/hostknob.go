// Package hostknob changes, and restores, the kernel settings of the host
// a managed server runs on: the sysctls and transparent huge pages that
// PostgreSQL tuning guides set (vm.dirty_background_bytes, vm.dirty_bytes,
// vm.nr_hugepages, kernel.sched_migration_cost_ns, transparent huge
// pages). It is the only place in dbarena that writes host-wide state, and
// only when a plan names such a knob and the user allowed it by flag.
//
// A knob is named as sysmon records the setting among a result file's
// settings, "os." and the sysctl's name: os.vm.dirty_ratio,
// os.kernel.sched_migration_cost_ns, os.transparent_hugepage.enabled.
package hostknob

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Prefix starts every host knob's name.
const Prefix = "os."

// IsHostKnob tells whether a knob's name is a host knob's.
func IsHostKnob(name string) bool { return strings.HasPrefix(name, Prefix) }

// Setting is one knob and the value asked for it.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Host is where the knobs' files are: the root of /proc and /sys.
// Tests give directories of their own.
type Host struct {
	Proc, Sys string
}

// Real is this host.
var Real = Host{Proc: "/proc", Sys: "/sys"}

// ErrNotRoot is returned when the process may not write the host's
// settings.
var ErrNotRoot = errors.New("changing the host's kernel settings needs root")

var sysctlRE = regexp.MustCompile(`^(vm|kernel)\.[a-z0-9_]+$`)

// siblings are the sysctls the kernel keeps in pairs, one of the two 0:
// writing one zeroes the other, and neither takes 0. Apply saves both,
// and Restore writes back the one that was not 0.
var siblings = map[string]string{
	"os.vm.dirty_bytes": "os.vm.dirty_ratio", "os.vm.dirty_ratio": "os.vm.dirty_bytes",
	"os.vm.dirty_background_bytes": "os.vm.dirty_background_ratio", "os.vm.dirty_background_ratio": "os.vm.dirty_background_bytes",
}

// thpKnobs are transparent huge pages' settings under
// /sys/kernel/mm/transparent_hugepage.
var thpKnobs = map[string]bool{"enabled": true, "defrag": true}

// CheckName returns an error naming the knob when name is no host knob
// dbarena can set, whatever the kernel.
func CheckName(name string) error {
	rest, ok := strings.CutPrefix(name, Prefix)
	switch {
	case !ok:
		return fmt.Errorf("knob %s: not a host knob (%s…)", name, Prefix)
	case strings.HasPrefix(rest, "transparent_hugepage."):
		if !thpKnobs[strings.TrimPrefix(rest, "transparent_hugepage.")] {
			return fmt.Errorf("knob %s: transparent huge pages have enabled and defrag", name)
		}
	case !sysctlRE.MatchString(rest):
		return fmt.Errorf("knob %s: want os.vm.<sysctl>, os.kernel.<sysctl> or os.transparent_hugepage.enabled|defrag", name)
	}
	return nil
}

// Path is the file behind a knob's name, or an error naming the knob
// when it is no host knob dbarena can set or this kernel does not have
// it.
func (h Host) Path(name string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	rest := strings.TrimPrefix(name, Prefix)
	var p string
	switch {
	case strings.HasPrefix(rest, "transparent_hugepage."):
		p = filepath.Join(h.Sys, "kernel/mm/transparent_hugepage", strings.TrimPrefix(rest, "transparent_hugepage."))
	case rest == "kernel.sched_migration_cost_ns":
		// In debugfs since Linux 5.13.
		p = filepath.Join(h.Proc, "sys/kernel/sched_migration_cost_ns")
		if _, err := os.Stat(p); err != nil {
			p = filepath.Join(h.Sys, "kernel/debug/sched/migration_cost_ns")
		}
	default:
		p = filepath.Join(h.Proc, "sys", strings.ReplaceAll(rest, ".", "/"))
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("knob %s: this kernel has no %s", name, p)
	}
	return p, nil
}

// Read is a knob's value now; transparent huge pages' bracketed choice
// ("always madvise [never]" reads "never").
func (h Host) Read(name string) (string, error) {
	p, err := h.Path(name)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("knob %s: %w", name, err)
	}
	return value(string(b)), nil
}

// value is a setting file's value: its bracketed choice when it lists
// them, else its text with runs of white space made one space.
func value(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return strings.Join(strings.Fields(s), " ")
}

// Check tells, before anything is changed, whether every setting can be
// made: each is a host knob this kernel has, and the process is root.
func (h Host) Check(settings []Setting) error {
	var errs []error
	for _, s := range settings {
		if s.Value == "" {
			errs = append(errs, fmt.Errorf("knob %s: empty value", s.Name))
			continue
		}
		if _, err := h.Path(s.Name); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 && h == Real && os.Geteuid() != 0 {
		names := make([]string, len(settings))
		for i, s := range settings {
			names[i] = s.Name
		}
		errs = append(errs, fmt.Errorf("%w: %s; run dbarena as root or leave them out", ErrNotRoot, strings.Join(names, ", ")))
	}
	return errors.Join(errs...)
}

// writeFile writes a setting (a kernel that refuses a value fails the
// write with EINVAL; the tests make it so).
var writeFile = os.WriteFile

// Original is a knob's value before Apply changed it.
type Original struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Was  string `json:"was"`
}

// Applied is what Apply changed, for Restore.
type Applied struct {
	h Host
	// Was are the values replaced, Now the values read back after, in
	// the same order: the knobs set and their siblings
	// (vm.dirty_background_ratio beside vm.dirty_background_bytes).
	Was  []Original
	Now  []Setting
	file string
}

// Apply sets every setting after saving the values they replace into
// saveFile (so that Recover can restore them if dbarena is killed before
// Restore), reads each back and fails when the kernel took another value.
// On failure what it changed is restored.
func (h Host) Apply(settings []Setting, saveFile string) (*Applied, error) {
	if err := h.Check(settings); err != nil {
		return nil, err
	}
	a := &Applied{h: h, file: saveFile}
	saved := map[string]bool{}
	keep := func(name string) error {
		if saved[name] {
			return nil
		}
		p, err := h.Path(name)
		if err != nil {
			return err
		}
		was, err := h.Read(name)
		if err != nil {
			return err
		}
		saved[name] = true
		a.Was = append(a.Was, Original{Name: name, Path: p, Was: was})
		return nil
	}
	for _, s := range settings {
		if err := keep(s.Name); err != nil {
			return nil, err
		}
		if sib, ok := siblings[s.Name]; ok {
			if err := keep(sib); err != nil {
				return nil, err
			}
		}
	}
	if err := a.save(); err != nil {
		return nil, err
	}
	// On failure, only what was written goes back.
	var written []Original
	undo := func() error {
		b := &Applied{h: h, Was: written, file: saveFile}
		return b.Restore()
	}
	for _, s := range settings {
		p, _ := h.Path(s.Name)
		if err := writeFile(p, []byte(s.Value+"\n"), 0o644); err != nil {
			return nil, errors.Join(fmt.Errorf("knob %s=%s: %w", s.Name, s.Value, err), undo())
		}
		for _, o := range a.Was {
			if o.Name == s.Name || o.Name == siblings[s.Name] {
				written = append(written, o)
			}
		}
		got, err := h.Read(s.Name)
		if err == nil && got != value(s.Value) {
			err = fmt.Errorf("knob %s=%s: the kernel took %q", s.Name, s.Value, got)
		}
		if err != nil {
			return nil, errors.Join(err, undo())
		}
	}
	// What the kernel has now, the siblings it changed included.
	for _, o := range a.Was {
		got, err := h.Read(o.Name)
		if err != nil {
			return nil, errors.Join(err, undo())
		}
		a.Now = append(a.Now, Setting{Name: o.Name, Value: got})
	}
	return a, nil
}

func (a *Applied) save() error {
	if a.file == "" {
		return nil
	}
	b, err := json.MarshalIndent(a.Was, "", "  ")
	if err != nil {
		return err
	}
	tmp := a.file + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving the host's settings before changing them: %w", err)
	}
	if err := os.Rename(tmp, a.file); err != nil {
		return fmt.Errorf("saving the host's settings before changing them: %w", err)
	}
	return nil
}

// Restore writes back every value Apply replaced, last changed first,
// and removes the saved file once all are back. Of a pair of siblings
// (vm.dirty_bytes and vm.dirty_ratio) it writes the one that was not 0,
// which zeroes the other as it was.
func (a *Applied) Restore() error {
	var errs []error
	was := map[string]string{}
	for _, o := range a.Was {
		was[o.Name] = o.Was
	}
	for i := len(a.Was) - 1; i >= 0; i-- {
		o := a.Was[i]
		if sib, ok := siblings[o.Name]; ok && o.Was == "0" && was[sib] != "" && was[sib] != "0" {
			continue
		}
		if err := writeFile(o.Path, []byte(o.Was+"\n"), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restoring %s to %s: %w", o.Name, o.Was, err))
		}
	}
	if len(errs) == 0 && a.file != "" {
		if err := os.Remove(a.file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Recover restores the settings saved in saveFile by an Apply whose
// Restore never ran (dbarena was killed in between) and returns what it
// restored; a missing file restores nothing. It writes only the files
// the knobs' names stand for.
func (h Host) Recover(saveFile string) ([]Original, error) {
	b, err := os.ReadFile(saveFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var was []Original
	if err := json.Unmarshal(b, &was); err != nil {
		return nil, fmt.Errorf("%s: %w", saveFile, err)
	}
	for _, o := range was {
		if p, err := h.Path(o.Name); err != nil || p != o.Path {
			return nil, fmt.Errorf("%s: %s is not the file of knob %s", saveFile, o.Path, o.Name)
		}
	}
	a := &Applied{h: h, Was: was, file: saveFile}
	return was, a.Restore()
}
