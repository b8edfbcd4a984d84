// Command mongoload is the MongoDB side of `bench docolap`
// (internal/tools/bench): MongoDB's own bulk path, fed from a file, timed
// against dbarena's load of the same documents. It reads a file that `dbarena dump docolap` wrote (PostgreSQL's
// COPY text format: one event a line, its id, a tab and its JSON document
// with backslashes doubled) and encodes every line as the BSON document
// dbarena stores: the event itself, {_id: id, <the JSON's fields>}, its
// fields at the top level after _id (numbers as a relaxed Extended JSON
// parser makes them: int32 where they fit, else int64 or double). With -encode it writes those documents, one after another, to
// a .bson file (the layout mongodump writes), so that later runs read them
// ready-made with -bson. Then, timed:
//
//  1. it creates the collection,
//  2. inserts the documents, in the file's order, with unordered
//     insertMany calls of -batch documents each, -workers of them at a
//     time (each free worker takes the next batch),
//  3. with -indexes-from, builds the secondary indexes that collection
//     (COLL, or DB.COLL in another database) has, their keys and names, in
//     one createIndexes, as dbarena does after its load.
//
// Loading, it prints one line of tab-separated figures: documents, JSON
// document bytes (0 from -bson), BSON bytes, load seconds, index seconds,
// and the server's version. With -count or -encode it only reads the dump
// (without connecting) and prints the documents, their JSON bytes and
// their BSON bytes (0 with -count).
//
// The collection must not exist; it is dropped at the end unless -keep is
// given (a failed run drops it too).
//
// Usage:
//
//	go run ./internal/tools/mongoload -file DUMP (-count | -encode OUT.bson)
//	go run ./internal/tools/mongoload (-file DUMP | -bson FILE.bson) -uri URL -collection NAME \
//	    [-batch 1000] [-workers 4] [-indexes-from [DB.]COLL] [-keep]
//
// The URL names the database (mongodb://…/DB?…); its password is never
// printed. Exit status: 0 on success, 1 on failure, 2 on a bad command line.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
)

func main() {
	os.Exit(run())
}

func run() int {
	fs := flag.NewFlagSet("mongoload", flag.ContinueOnError)
	file := fs.String("file", "", "the file `dbarena dump docolap` wrote")
	count := fs.Bool("count", false, "only count the documents and their JSON bytes")
	encode := fs.String("encode", "", "only write the documents as BSON to this file")
	bsonFile := fs.String("bson", "", "load the documents of this file, which -encode wrote, instead of -file's")
	uri := fs.String("uri", "", "the MongoDB URL, naming the database")
	coll := fs.String("collection", "", "the collection to create and load (must not exist)")
	batch := fs.Int("batch", 1000, "documents per insertMany")
	workers := fs.Int("workers", 4, "concurrent insertMany calls")
	indexesFrom := fs.String("indexes-from", "", "a collection (COLL or DB.COLL) whose secondary indexes to build after the load")
	keep := fs.Bool("keep", false, "keep the collection")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "mongoload: "+format+"\n", a...)
		return 2
	}
	switch {
	case *file == "" && *bsonFile == "":
		return bad("-file: name the file to load (or -bson)")
	case *file != "" && *bsonFile != "":
		return bad("-bson %s: give -file or -bson, not both", *bsonFile)
	case (*count || *encode != "") && *file == "":
		return bad("-count, -encode: read -file")
	case *count || *encode != "":
	case *uri == "":
		return bad("-uri: name the server and database")
	case *coll == "":
		return bad("-collection: name the collection to load")
	case *batch < 1:
		return bad("-batch %d: must be at least 1", *batch)
	case *workers < 1:
		return bad("-workers %d: must be at least 1", *workers)
	}
	if err := load(*file, *bsonFile, *count, *encode, *uri, *coll, *batch, *workers, *indexesFrom, *keep); err != nil {
		fmt.Fprintf(os.Stderr, "mongoload: %v\n", err)
		return 1
	}
	return 0
}

func load(file, bsonFile string, countOnly bool, encode, uri, coll string, batch, workers int, indexesFrom string, keep bool) error {
	var docs []any
	var jsonBytes, bsonBytes int64
	var err error
	if bsonFile != "" {
		docs, bsonBytes, err = readBSON(bsonFile)
	} else {
		docs, jsonBytes, bsonBytes, err = read(file, !countOnly)
	}
	if err != nil {
		return err
	}
	if encode != "" {
		if err := writeBSON(encode, docs); err != nil {
			return err
		}
	}
	if countOnly || encode != "" {
		fmt.Printf("%d\t%d\t%d\n", len(docs), jsonBytes, bsonBytes)
		return nil
	}
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		return errors.New("-uri: not a MongoDB URL") // the parser's message may quote the password
	}
	if cs.Database == "" {
		return errors.New("-uri: name the database in the URL's path")
	}
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return err
	}
	defer client.Disconnect(ctx)
	db := client.Database(cs.Database)
	var models []mongo.IndexModel
	if indexesFrom != "" {
		from := db.Collection(indexesFrom)
		if d, c, ok := strings.Cut(indexesFrom, "."); ok {
			from = client.Database(d).Collection(c)
		}
		if models, err = indexModels(ctx, from); err != nil {
			return err
		}
	}
	names, err := db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: coll}})
	if err != nil {
		return err
	}
	if len(names) > 0 {
		return fmt.Errorf("collection %s.%s exists; it is not this program's to replace", cs.Database, coll)
	}

	start := time.Now()
	if err := db.CreateCollection(ctx, coll); err != nil {
		return err
	}
	c := db.Collection(coll)
	if !keep {
		defer c.Drop(context.Background())
	}
	if err := insert(ctx, c, docs, batch, workers); err != nil {
		return err
	}
	loaded := time.Now()
	if len(models) > 0 {
		if _, err := c.Indexes().CreateMany(ctx, models); err != nil {
			return fmt.Errorf("building indexes: %w", err)
		}
	}
	indexed := time.Now()
	var info struct {
		Version string `bson:"version"`
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return err
	}
	fmt.Printf("%d\t%d\t%d\t%.3f\t%.3f\t%s\n", len(docs), jsonBytes, bsonBytes, loaded.Sub(start).Seconds(), indexed.Sub(loaded).Seconds(), info.Version)
	return nil
}

// read decodes the file's lines; with encode, each into its BSON document,
// chunks of lines on as many goroutines as there are processors.
func read(file string, encode bool) (docs []any, jsonBytes, bsonBytes int64, err error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	type chunk struct {
		first int      // line number of lines[0], from 1
		lines [][]byte // each with its own bytes
		docs  []any
		json  int64
		bson  int64
		err   error
	}
	todo := make(chan *chunk)
	var done []*chunk
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var doc []byte
			for c := range todo {
				for k, l := range c.lines {
					if doc, c.err = decode(doc[:0], l); c.err != nil {
						c.err = fmt.Errorf("%s line %d: %w", file, c.first+k, c.err)
						break
					}
					c.json += int64(len(doc))
					if !encode {
						c.docs = append(c.docs, nil)
						continue
					}
					id, _ := strconv.ParseInt(string(l[:bytes.IndexByte(l, '\t')]), 10, 64)
					var raw bson.Raw
					if raw, c.err = encodeDoc(id, doc); c.err != nil {
						c.err = fmt.Errorf("%s line %d: %w", file, c.first+k, c.err)
						break
					}
					c.bson += int64(len(raw))
					c.docs = append(c.docs, raw)
				}
				c.lines = nil
			}
		}()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	c := &chunk{first: 1}
	line := 0
	for sc.Scan() {
		line++
		c.lines = append(c.lines, bytes.Clone(sc.Bytes()))
		if len(c.lines) == 1000 {
			done = append(done, c)
			todo <- c
			c = &chunk{first: line + 1}
		}
	}
	if len(c.lines) > 0 {
		done = append(done, c)
		todo <- c
	}
	close(todo)
	wg.Wait()
	if err := sc.Err(); err != nil {
		return nil, 0, 0, err
	}
	for _, c := range done {
		if c.err != nil {
			return nil, 0, 0, c.err
		}
		docs = append(docs, c.docs...)
		jsonBytes += c.json
		bsonBytes += c.bson
	}
	return docs, jsonBytes, bsonBytes, nil
}

// decode checks one line's id and appends its document, unescaped, to dst.
func decode(dst, line []byte) ([]byte, error) {
	idText, rest, ok := bytes.Cut(line, []byte{'\t'})
	if !ok {
		return nil, errors.New("no tab between the id and the document")
	}
	if _, err := strconv.ParseInt(string(idText), 10, 64); err != nil {
		return nil, fmt.Errorf("id %q: %w", idText, err)
	}
	return unescape(dst, rest)
}

// encodeDoc is the BSON document {_id: id, <doc's fields>}: the event
// parsed, its fields after _id.
func encodeDoc(id int64, doc []byte) (bson.Raw, error) {
	var fields bson.D
	if err := bson.UnmarshalExtJSON(doc, false, &fields); err != nil {
		return nil, err
	}
	for _, f := range fields {
		if f.Key == "_id" {
			return nil, errors.New("the document has an _id of its own")
		}
	}
	return bson.Marshal(append(bson.D{{Key: "_id", Value: id}}, fields...))
}

// writeBSON writes docs, one after another, to a new file out.
func writeBSON(out string, docs []any) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, d := range docs {
		if _, err := w.Write(d.(bson.Raw)); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readBSON reads the documents of a file writeBSON wrote, each a slice of
// the file's bytes, and checks each.
func readBSON(file string) ([]any, int64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, 0, err
	}
	var docs []any
	for off := 0; off < len(b); {
		if len(b)-off < 5 {
			return nil, 0, fmt.Errorf("%s: %d bytes left after document %d, too few for a document", file, len(b)-off, len(docs))
		}
		n := int(binary.LittleEndian.Uint32(b[off:]))
		if n < 5 || n > len(b)-off {
			return nil, 0, fmt.Errorf("%s: document %d at byte %d claims %d bytes", file, len(docs)+1, off, n)
		}
		d := bson.Raw(b[off : off+n : off+n])
		if err := d.Validate(); err != nil {
			return nil, 0, fmt.Errorf("%s: document %d: %w", file, len(docs)+1, err)
		}
		docs = append(docs, d)
		off += n
	}
	return docs, int64(len(b)), nil
}

// unescape undoes COPY text format's escapes of one field.
func unescape(dst, s []byte) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			dst = append(dst, s[i])
			continue
		}
		if i++; i == len(s) {
			return nil, errors.New("a backslash ends the line")
		}
		switch s[i] {
		case '\\':
			dst = append(dst, '\\')
		case 't':
			dst = append(dst, '\t')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		default:
			return nil, fmt.Errorf("escape \\%c is not one dbarena dump writes", s[i])
		}
	}
	return dst, nil
}

// insert sends docs in unordered insertMany calls of batch documents,
// workers at a time.
func insert(ctx context.Context, c *mongo.Collection, docs []any, batch, workers int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := options.InsertMany().SetOrdered(false).SetBypassDocumentValidation(true)
	next := make(chan int)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for from := range next {
				if _, err := c.InsertMany(ctx, docs[from:min(from+batch, len(docs))], opts); err != nil {
					errs[w] = err
					cancel()
					return
				}
			}
		}()
	}
feed:
	for from := 0; from < len(docs); from += batch {
		select {
		case next <- from:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// indexModels are from's secondary indexes: their keys and names.
func indexModels(ctx context.Context, from *mongo.Collection) ([]mongo.IndexModel, error) {
	specs, err := from.Indexes().ListSpecifications(ctx)
	if err != nil {
		return nil, fmt.Errorf("-indexes-from %s: %w", from.Name(), err)
	}
	var out []mongo.IndexModel
	for _, s := range specs {
		if s.Name == "_id_" {
			continue
		}
		o := options.Index().SetName(s.Name)
		if s.Unique != nil && *s.Unique {
			o.SetUnique(true)
		}
		out = append(out, mongo.IndexModel{Keys: s.KeysDocument, Options: o})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-indexes-from %s: no secondary indexes (is it loaded?)", from.Name())
	}
	return out, nil
}
