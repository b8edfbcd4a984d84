package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// run starts the server's process on spec.Port, or on a free port (and
// on another one when that was taken between the choice and the bind),
// and waits until ready succeeds. launch starts the process on a port.
func (s *Server) run(ctx context.Context, spec Spec, launch func(port int) (*process, error), ready func(context.Context) error) error {
	for attempt := 1; ; attempt++ {
		port := spec.Port
		if port == 0 {
			var err error
			if port, err = freePort(); err != nil {
				return err
			}
		}
		s.rec.Port = port
		from := fileSize(s.LogFile())
		p, err := launch(port)
		if err != nil {
			return err
		}
		s.proc, s.rec.PID, s.rec.StartTicks = p, p.pid, p.ticks
		if err := s.save(); err != nil {
			return err
		}
		err = s.waitReady(ctx, spec, from, ready)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrPortInUse) || spec.Port != 0 || attempt == 3 {
			return err
		}
		_ = p.stop(context.Background(), syscall.SIGKILL, 10*time.Second)
	}
}

// waitReady polls ready until it succeeds, the process exits, ctx ends or
// spec.Timeout passes. The log from offset from on explains an exit.
func (s *Server) waitReady(ctx context.Context, spec Spec, from int64, ready func(context.Context) error) error {
	deadline := time.Now().Add(spec.Timeout)
	for {
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := ready(rctx)
		cancel()
		if err == nil {
			return nil
		}
		if !s.proc.alive() {
			return s.exitError(spec, from, err)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted while waiting for the server: %w", ctx.Err())
		}
		if time.Now().After(deadline) {
			return &StartError{Kind: s.rec.Kind, Name: s.rec.Name, Log: s.LogTail(20),
				Err: fmt.Errorf("not accepting connections after %s (the last attempt: %v)", spec.Timeout, err)}
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// exitError explains why the server's process ended during its start:
// the knobs its log names, a port in use, or else the last attempt to
// connect; with the end of the log.
func (s *Server) exitError(spec Spec, from int64, last error) error {
	log := readFrom(s.LogFile(), from)
	var err error
	if kerrs := knobProblems(defOf(s.rec.Kind), log, spec.Knobs); len(kerrs) > 0 {
		err = errors.Join(kerrs...)
	} else if strings.Contains(log, "Address already in use") {
		err = fmt.Errorf("%w: port %d on 127.0.0.1 was taken by another process", ErrPortInUse, s.rec.Port)
	} else {
		err = fmt.Errorf("the server exited (the last attempt to connect: %v)", last)
	}
	return &StartError{Kind: s.rec.Kind, Name: s.rec.Name, Err: err, Log: s.LogTail(20)}
}

// setupError explains a failed set-up program (initdb,
// mariadb-install-db) from its output in logPath.
func (s *Server) setupError(spec Spec, logPath string, err error) error {
	if kerrs := knobProblems(defOf(s.rec.Kind), readFrom(logPath, 0), spec.Knobs); len(kerrs) > 0 {
		err = errors.Join(kerrs...)
	}
	// mariadb-install-db ends its output with a page of advice: the
	// error lines say more.
	log := tail(logPath, 20)
	var errLines []string
	for _, l := range strings.Split(readFrom(logPath, 0), "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "FATAL") {
			errLines = append(errLines, l)
		}
	}
	if len(errLines) > 0 {
		log = strings.Join(errLines[max(0, len(errLines)-20):], "\n")
	}
	return &StartError{Kind: s.rec.Kind, Name: s.rec.Name, Err: err, Log: log}
}

// logPrefix is a log line's time stamp, process and severity, as
// PostgreSQL, MariaDB and PgBouncer write them.
var logPrefix = regexp.MustCompile(`^\d{4}-\d\d-\d\d\s+[\d:.]+\s+(?:[A-Z]{2,5}\s+)?(?:\[\d+\]\s+|\d+\s+)?(?:\[?(?:LOG|FATAL|ERROR|WARNING|PANIC|HINT|DETAIL|Warning|Note)\]?:?\s+)?`)

// errorWords mark the log lines that may blame a knob (a MariaDB note
// that merely echoes a setting does not).
var errorWords = []string{"ERROR", "FATAL", "HINT", "invalid", "Invalid", "unknown", "unrecognized", "out of range", "must be",
	"Unknown", "BadValue", "Error parsing"}

// knobProblems finds the knobs that error lines of a failed start's log
// name: "unrecognized configuration parameter "shared_bufers"",
// "invalid value for parameter "shared_buffers": "banana"", "unknown
// variable 'innodb_bufer_pool_size=1G'", "unknown parameter:
// pgbouncer/default_pool_sise". A PostgreSQL HINT line is added to the
// line before it.
func knobProblems(def *KindDef, log string, knobs []Knob) []error {
	lines := strings.Split(log, "\n")
	var errs []error
	kind := def.Kind
	for _, k := range knobs {
		name := strings.ToLower(k.Name)
		if def.Backend != "" {
			n, own := strings.CutPrefix(name, def.OwnPrefix)
			if !own {
				continue // the backend's: its own start reports it
			}
			name = n
		}
		for i, line := range lines {
			if !mentions(strings.ToLower(line), name) || !hasAny(line, errorWords) {
				continue
			}
			problem := logPrefix.ReplaceAllString(plainLine(line), "")
			if i+1 < len(lines) && strings.Contains(lines[i+1], "HINT:") {
				problem += " (" + logPrefix.ReplaceAllString(strings.TrimSpace(lines[i+1]), "") + ")"
			}
			errs = append(errs, &KnobError{Kind: kind, Knob: k, Problem: problem})
			break
		}
	}
	return errs
}

// plainLine is a log line as a message: for a structured (JSON) line, as
// mongod writes them, its msg and the error's errmsg.
func plainLine(line string) string {
	line = strings.TrimSpace(line)
	var l struct {
		Msg  string `json:"msg"`
		Attr struct {
			Error struct {
				Errmsg string `json:"errmsg"`
			} `json:"error"`
		} `json:"attr"`
	}
	if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &l) != nil || l.Msg == "" {
		return line
	}
	if l.Attr.Error.Errmsg != "" {
		return l.Msg + ": " + l.Attr.Error.Errmsg
	}
	return l.Msg
}

// mentions tells whether line holds name as a whole word ('-' and '_'
// alike, as MariaDB takes them).
func mentions(line, name string) bool {
	line = strings.ReplaceAll(line, "-", "_")
	name = strings.ReplaceAll(name, "-", "_")
	for off := 0; ; {
		i := strings.Index(line[off:], name)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(name)
		if (i == 0 || !isWordByte(line[i-1])) && (end == len(line) || !isWordByte(line[end])) {
			return true
		}
		off = i + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func hasAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// readFrom reads a file from offset from on (at most 1 MiB).
func readFrom(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	return string(b)
}

// writeOwned writes a file of the server's user a, readable by it only.
func writeOwned(a account, path, content string) error {
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return err
	}
	return a.give(path)
}
