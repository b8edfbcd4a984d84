package docolap_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/workload/docolap"
)

// copyUnescape undoes COPY text format's escapes, as PostgreSQL reads them.
func copyUnescape(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			t.Fatalf("unexpected escape \\%c", s[i])
		}
	}
	return b.String()
}

// The dump holds exactly the rows prepare loads: line i is event i's id, a
// tab and its JSON (AppendEvent's bytes), in COPY's text format, for a
// count that is not a multiple of the chunks the goroutines make.
func TestDumpIsTheLoadedRows(t *testing.T) {
	const n = 4321
	g := docolap.NewGenerator(7, n)
	var out bytes.Buffer
	rows, err := docolap.DumpEvents(context.Background(), g, &out)
	if err != nil {
		t.Fatal(err)
	}
	if rows != n {
		t.Fatalf("rows = %d, want %d", rows, n)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	i := int64(0)
	escaped := 0
	for ; sc.Scan(); i++ {
		id, doc, ok := strings.Cut(sc.Text(), "\t")
		if !ok || strings.Contains(doc, "\t") {
			t.Fatalf("line %d: want exactly two tab-separated fields: %.80q", i+1, sc.Text())
		}
		if want := strconv.FormatInt(g.ID(i), 10); id != want {
			t.Fatalf("line %d: id %s, want %s", i+1, id, want)
		}
		if strings.Contains(doc, `\\`) {
			escaped++
		}
		plain := copyUnescape(t, doc)
		if want := string(g.AppendEvent(nil, i)); plain != want {
			t.Fatalf("line %d: document differs from AppendEvent's:\n got %.200s\nwant %.200s", i+1, plain, want)
		}
		if !json.Valid([]byte(plain)) {
			t.Fatalf("line %d: not valid JSON", i+1)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if i != n {
		t.Fatalf("%d lines, want %d", i, n)
	}
	if escaped == 0 {
		t.Fatal("no document had a backslash to escape: the test checks no escaping")
	}
}

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.after == 0 {
		return 0, errors.New("disk full")
	}
	w.after--
	return len(p), nil
}

// A failed write stops the dump with the writer's error.
func TestDumpStopsOnWriteError(t *testing.T) {
	g := docolap.NewGenerator(1, 50000)
	rows, err := docolap.DumpEvents(context.Background(), g, &failingWriter{after: 2})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want the writer's", err)
	}
	if rows >= 50000 {
		t.Fatalf("rows = %d after a failed write", rows)
	}
}

// A cancelled context stops the dump.
func TestDumpStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := docolap.DumpEvents(ctx, docolap.NewGenerator(1, 50000), &bytes.Buffer{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// The normalized form has no dump: refused naming --normalized, nothing
// written.
func TestDumpRefusesNormalized(t *testing.T) {
	w := docolap.New()
	if err := w.Define().Options.Parse([]string{"--events", "10", "--normalized"}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	n, err := w.Define().Dump.Write(context.Background(), &b)
	if err == nil || !strings.Contains(err.Error(), "--normalized") || n != 0 || b.Len() != 0 {
		t.Errorf("Dump --normalized = %d rows, %v, %d bytes written; want a refusal naming --normalized", n, err, b.Len())
	}
}
