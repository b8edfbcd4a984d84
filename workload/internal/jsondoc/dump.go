package jsondoc

import (
	"context"
	"io"
	"runtime"
	"strconv"
	"sync"
)

// dumpChunk is the number of documents one goroutine of Dump makes at a
// time.
const dumpChunk = 2000

// Dump writes documents 0 to n-1 to out in PostgreSQL's COPY text
// format, in order, one a line: id(i), a tab, and doc's document i (the
// bytes appended to dst) with every backslash doubled, as a workload's
// Spec.Dump does. Documents are made by as many goroutines as there are
// processors (doc and id must be safe for concurrent calls) and written
// in order; it returns the rows written and stops at out's first error
// or when ctx is cancelled.
func Dump(ctx context.Context, n int64, id func(i int64) int64, doc func(dst []byte, i int64) []byte, out io.Writer) (int64, error) {
	chunks := int((n + dumpChunk - 1) / dumpChunk)
	workers := min(runtime.GOMAXPROCS(0), max(chunks, 1))
	// Chunk c is made by worker c%workers into a buffer of its own and
	// handed to the writer through that worker's channel, so the writer
	// takes the chunks in order; a buffer comes back through free.
	made := make([]chan []byte, workers)
	free := make([]chan []byte, workers)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for k := range workers {
		made[k] = make(chan []byte, 1)
		free[k] = make(chan []byte, 2)
		free[k] <- nil
		free[k] <- nil
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(made[k])
			var d []byte
			for c := k; c < chunks; c += workers {
				var buf []byte
				select {
				case buf = <-free[k]:
				case <-ctx.Done():
					return
				}
				buf = buf[:0]
				first := int64(c) * dumpChunk
				for i := first; i < min(first+dumpChunk, n); i++ {
					d = doc(d[:0], i)
					buf = appendCopyLine(buf, id(i), d)
				}
				select {
				case made[k] <- buf:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	var rows int64
	var err error
	for c := 0; c < chunks; c++ {
		k := c % workers
		buf, ok := <-made[k]
		if !ok { // the worker stopped: parent was cancelled
			break
		}
		if _, err = out.Write(buf); err != nil {
			break
		}
		rows += min(dumpChunk, n-int64(c)*dumpChunk)
		free[k] <- buf // never blocks: the worker holds at most two buffers
	}
	cancel()
	wg.Wait()
	if err == nil {
		err = parent.Err()
	}
	return rows, err
}

// appendCopyLine appends one row of COPY's text format: id, a tab, doc
// with its backslashes (and any tab or line break, which compact JSON
// does not have) escaped, a newline.
func appendCopyLine(b []byte, id int64, doc []byte) []byte {
	b = strconv.AppendInt(b, id, 10)
	b = append(b, '\t')
	for len(doc) > 0 {
		j := 0
		for j < len(doc) && doc[j] != '\\' && doc[j] != '\t' && doc[j] != '\n' && doc[j] != '\r' {
			j++
		}
		b = append(b, doc[:j]...)
		if j == len(doc) {
			break
		}
		switch doc[j] {
		case '\\':
			b = append(b, '\\', '\\')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		}
		doc = doc[j+1:]
	}
	return append(b, '\n')
}
