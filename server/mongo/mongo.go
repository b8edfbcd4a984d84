// Package mongo defines the managed-server kind MongoDB (ServerKind) and
// registers it with package server from its init: a mongod started as a
// one-node replica set with authentication (Initiate), whose targets are
// mongodb:// URLs that engine/mongo opens; the two packages do not
// import each other. The test servers' mongod (scripts/testservers) is
// initiated by the same code, through internal/tools/mongoinit.
package mongo

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/dbarena/dbarena/server"
)

// ServerKind is the managed-server kind of MongoDB: a mongod (see Find)
// run as a one-node replica set. Its targets are mongodb:// URLs.
const ServerKind server.Kind = "mongo"

// ReplSet is the name of a managed mongod's replica set.
const ReplSet = "rs0"

// CacheDir is where the project's scripts (scripts/testservers install)
// put mongod, under ${XDG_CACHE_HOME:-$HOME/.cache}.
const CacheDir = "dbarena/mongod-6.0.5"

// init registers the managed-server kind.
func init() { server.RegisterKind(mongoKind) }

// mongoKind is MongoDB: mongod; knobs are its command-line options
// (wiredTigerCacheSizeGB=1 is --wiredTigerCacheSizeGB=1) or, for a name
// that is none, --setParameter name=value; SIGTERM for a clean shutdown;
// as root it runs as root.
var mongoKind = &server.KindDef{
	Kind:    ServerKind,
	Title:   "MongoDB",
	Aliases: []string{"mongodb", "mongod"},
	Order:   30,
	Reserved: map[string]string{
		"port": "--port", "bind_ip": "", "bind_ip_all": "", "ipv6": "", "dbpath": "", "replset": "", "keyfile": "",
		"auth": "", "noauth": "", "fork": "", "logpath": "", "logappend": "", "pidfilepath": "", "config": "", "f": "",
		"unixsocketprefix": "", "nounixsocket": "", "transitiontoauth": "", "clusterauthmode": "", "setparameter": "",
		"shutdown": "", "repair": "", "upgrade": "", "help": "", "version": "", "sysinfo": "",
	},
	StopSignal: syscall.SIGTERM,
	Find:       findMongod,
	Programs:   []string{"mongod"},
	Start:      startMongod,
	TargetURL: func(u *url.URL) {
		u.Scheme = "mongodb"
		u.RawQuery = url.Values{"replicaSet": {ReplSet}, "authSource": {"admin"}}.Encode()
	},
	Describe: func(spec server.Spec) (string, []string, error) {
		bins, err := findMongod(spec)
		if err != nil {
			return "", nil, err
		}
		return bins.Path["mongod"], []string{"--help"}, nil
	},
	Parse: func(out []byte) []string {
		var names []string
		for name := range parseHelp(out) {
			names = append(names, name)
		}
		return names
	},
	// Any name mongod --help does not list may be a --setParameter.
	PartialList: true,
	PIDFile: func(s *server.Server) string {
		if s.RunDir() == "" {
			return ""
		}
		return pidFile(s.RunDir())
	},
}

// pidFile is mongod's PID file in the server's run directory.
func pidFile(runDir string) string { return filepath.Join(runDir, "mongod.pid") }

// findMongod finds mongod: Spec.Programs["mongod"] (--mongod), then
// $DBARENA_MONGOD, then Spec.BinDir, then PATH, then the project's cache
// (CacheDir). It never downloads one.
func findMongod(spec server.Spec) (server.Binaries, error) {
	getenv := spec.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	named := func(p, what string) (server.Binaries, error) {
		if !server.IsExecutable(p) {
			return server.Binaries{}, fmt.Errorf("%w: MongoDB: %s %s is not an executable file", server.ErrNotInstalled, what, p)
		}
		return server.Binaries{Dir: filepath.Dir(p), Path: map[string]string{"mongod": p}}, nil
	}
	if p := spec.Programs["mongod"]; p != "" {
		return named(p, "--mongod")
	}
	if p := getenv("DBARENA_MONGOD"); p != "" {
		return named(p, "DBARENA_MONGOD")
	}
	if spec.BinDir != "" {
		return named(filepath.Join(spec.BinDir, "mongod"), "--bin-dir's")
	}
	if p, err := server.LookPath("mongod", getenv("PATH")); err == nil {
		return named(p, "PATH's")
	}
	cache := cachePath(getenv)
	if cache != "" && server.IsExecutable(cache) {
		return named(cache, "the cached")
	}
	return server.Binaries{}, fmt.Errorf("%w: MongoDB: no mongod on PATH or in %s; scripts/testservers install fetches MongoDB 6.0.5's mongod into that cache (dbarena never downloads one itself), or name one with --mongod PATH or DBARENA_MONGOD",
		server.ErrNotInstalled, cache)
}

// cachePath is ${XDG_CACHE_HOME:-$HOME/.cache}/dbarena/mongod-6.0.5/mongod,
// or "" without either variable.
func cachePath(getenv func(string) string) string {
	base := getenv("XDG_CACHE_HOME")
	if base == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, CacheDir, "mongod")
}

// helpOption is one option line of mongod --help: "  --name arg  …" or
// "  -v [ --verbose ] …".
var helpOption = regexp.MustCompile(`^\s+(?:-\w \[ )?--([A-Za-z][A-Za-z0-9_.-]*)( arg)?`)

// parseHelp reads mongod --help's options: name → takes a value.
func parseHelp(out []byte) map[string]bool {
	opts := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if m := helpOption.FindStringSubmatch(sc.Text()); m != nil {
			opts[m[1]] = m[2] != "" || strings.Contains(sc.Text(), "]  arg") || strings.Contains(sc.Text(), "] arg")
		}
	}
	return opts
}

// knobArgs turns the knobs into mongod arguments: an option --help lists
// as --name=value (a switch, with value true, as --name), any other name
// as --setParameter name=value; a name that is an option's but for case,
// or within two edits of one, is refused (a misspelt option). It returns the arguments and which knobs
// are setParameters.
func knobArgs(knobs []server.Knob, opts map[string]bool) (args []string, params map[string]bool, err error) {
	params = map[string]bool{}
	var errs []error
	for _, k := range knobs {
		takesValue, isOpt := opts[k.Name]
		switch {
		case !isOpt && caseless(opts, k.Name) != "":
			errs = append(errs, &server.KnobError{Kind: ServerKind, Knob: k, Problem: "mongod's option is " + caseless(opts, k.Name) + " (its names are case-sensitive)"})
		case !isOpt && server.Nearest(k.Name, opts) != "":
			// No setParameter is within two edits of an option.
			errs = append(errs, &server.KnobError{Kind: ServerKind, Knob: k, Problem: "neither an option of mongod --help nor (surely) a setParameter; did you mean " + server.Nearest(k.Name, opts) + "?"})
		case !isOpt:
			params[k.Name] = true
			args = append(args, "--setParameter", k.Name+"="+k.Value)
		case takesValue:
			args = append(args, "--"+k.Name+"="+k.Value)
		case k.Value == "true":
			args = append(args, "--"+k.Name)
		default:
			errs = append(errs, &server.KnobError{Kind: ServerKind, Knob: k, Problem: "a switch of mongod: its only value is true"})
		}
	}
	return args, params, errors.Join(errs...)
}

// caseless is the option whose name is name but for case, or "".
func caseless(opts map[string]bool, name string) string {
	for o := range opts {
		if strings.EqualFold(o, name) {
			return o
		}
	}
	return ""
}

// optionPaths are the places of command-line options in getCmdLineOpts'
// parsed configuration whose last part is not the option's name.
var optionPaths = map[string]string{
	"wiredTigerCacheSizeGB":               "storage.wiredTiger.engineConfig.cacheSizeGB",
	"wiredTigerJournalCompressor":         "storage.wiredTiger.engineConfig.journalCompressor",
	"wiredTigerCollectionBlockCompressor": "storage.wiredTiger.collectionConfig.blockCompressor",
	"wiredTigerIndexPrefixCompression":    "storage.wiredTiger.indexConfig.prefixCompression",
	"wiredTigerDirectoryForIndexes":       "storage.wiredTiger.engineConfig.directoryForIndexes",
	"slowms":                              "operationProfiling.slowOpThresholdMs",
	"slowOpSampleRate":                    "operationProfiling.slowOpSampleRate",
	"profile":                             "operationProfiling.mode",
	"oplogSize":                           "replication.oplogSizeMB",
	"maxConns":                            "net.maxIncomingConnections",
	"syncdelay":                           "storage.syncPeriodSecs",
	"directoryperdb":                      "storage.directoryPerDB",
	"journalCommitInterval":               "storage.journal.commitIntervalMs",
	"storageEngine":                       "storage.engine",
}

// startMongod writes a keyFile, starts mongod on 127.0.0.1 in the run
// directory (data in data/, --replSet rs0 --auth --keyFile, no Unix
// socket, the knobs),
// makes it a one-node replica set with user bench (root) through the
// localhost exception (Initiate), waits until a transaction commits,
// and reads the knobs back (getParameter, getCmdLineOpts).
func startMongod(ctx context.Context, st *server.Starting) error {
	spec := st.Spec()
	run := st.RunDir()
	dataDir := filepath.Join(run, "data")
	st.SetDataDir(dataDir)
	if err := os.Mkdir(dataDir, 0o700); err != nil {
		return err
	}
	var opts map[string]bool
	if len(spec.Knobs) > 0 {
		out, err := exec.CommandContext(ctx, st.Program("mongod"), "--help").Output()
		if err != nil {
			return fmt.Errorf("mongod --help: %w", err)
		}
		opts = parseHelp(out)
	}
	kargs, params, err := knobArgs(spec.Knobs, opts)
	if err != nil {
		return err
	}
	key := make([]byte, 756)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	keyFile := filepath.Join(run, "keyfile")
	if err := st.WriteFile(keyFile, base64.StdEncoding.EncodeToString(key)+"\n"); err != nil {
		return err
	}
	command := func(port int) (string, []string, error) {
		args := []string{"--dbpath", dataDir, "--bind_ip", "127.0.0.1", "--port", strconv.Itoa(port),
			"--replSet", ReplSet, "--auth", "--keyFile", keyFile, "--pidfilepath", pidFile(run),
			"--nounixsocket"}
		return st.Program("mongod"), append(args, kargs...), nil
	}
	node := func() Node {
		return Node{Host: "127.0.0.1", Port: st.Port(), ReplSet: ReplSet, User: server.User, Password: st.Password().Reveal()}
	}
	ready := func(ctx context.Context) error {
		// The node answers hello before it is initiated: that is ready
		// for Initiate.
		c, err := mongo.Connect(directOptions(node().Addr()))
		if err != nil {
			return err
		}
		defer c.Disconnect(context.Background())
		return c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Err()
	}
	if err := st.Run(ctx, command, ready); err != nil {
		return err
	}
	timeout := spec.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	ictx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	n := node()
	if err := Initiate(ictx, n, nil); err != nil {
		return &server.StartError{Kind: ServerKind, Name: st.Name(), Err: err}
	}
	client, err := connect(n)
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	if err := commitOne(ictx, client); err != nil {
		return &server.StartError{Kind: ServerKind, Name: st.Name(), Err: fmt.Errorf("a first transaction: %w", err)}
	}
	var info struct {
		Version string `bson:"version"`
	}
	if err := client.Database("admin").RunCommand(ictx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return fmt.Errorf("buildInfo: %w", err)
	}
	st.SetVersion("MongoDB " + info.Version)
	return readBack(ictx, st, client, spec.Knobs, params)
}

// commitOne commits a transaction that inserts a document into a
// collection of database bench and drops that collection after: the node
// takes transactions. It retries while the node settles as primary.
func commitOne(ctx context.Context, client *mongo.Client) error {
	coll := client.Database(server.Database).Collection("dbarena_ready")
	defer coll.Drop(context.Background())
	var err error
	for {
		if err = coll.Database().CreateCollection(ctx, coll.Name()); err == nil || hasCode(err, 48) { // NamespaceExists
			err = nil
			var sess *mongo.Session
			if sess, err = client.StartSession(); err == nil {
				_, err = sess.WithTransaction(ctx, func(ctx context.Context) (any, error) {
					return coll.InsertOne(ctx, bson.D{{Key: "ready", Value: true}})
				})
				sess.EndSession(context.Background())
			}
		}
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (the last attempt: %v)", ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// readBack compares each knob with what the server reports: a
// setParameter with getParameter, an option with getCmdLineOpts' parsed
// configuration (optionPaths, else the path whose last part is the
// option's name).
func readBack(ctx context.Context, st *server.Starting, client *mongo.Client, knobs []server.Knob, params map[string]bool) error {
	if len(knobs) == 0 {
		return nil
	}
	admin := client.Database("admin")
	var cmdLine struct {
		Parsed bson.M `bson:"parsed"`
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&cmdLine); err != nil {
		return fmt.Errorf("getCmdLineOpts: %w", err)
	}
	parsed := map[string]any{}
	flatten("", cmdLine.Parsed, parsed)
	var errs []error
	for _, k := range knobs {
		var got string
		var problem string
		if params[k.Name] {
			var ans bson.M
			err := admin.RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: k.Name, Value: 1}}).Decode(&ans)
			v, ok := ans[k.Name]
			switch {
			case err != nil:
				problem = fmt.Sprintf("getParameter: %v", err)
			case !ok:
				problem = "getParameter does not report it"
			default:
				got = format(v)
			}
		} else {
			path, ok := optionPaths[k.Name]
			if !ok {
				path = lastPart(parsed, k.Name)
			}
			v, ok := parsed[path]
			if path == "" || !ok {
				problem = "getCmdLineOpts does not report it"
			} else {
				got = format(v)
			}
		}
		switch {
		case problem != "":
		case !server.LooseMatches(k.Value, got) && !sameNumber(k.Value, got):
			problem = fmt.Sprintf("the server reports %s = %s", k.Name, got)
		default:
			st.SetSetting(k.Name, got)
			continue
		}
		errs = append(errs, &server.KnobError{Kind: ServerKind, Knob: k, Problem: problem})
	}
	return errors.Join(errs...)
}

// flatten writes the leaves of doc into out under dotted paths.
func flatten(prefix string, doc bson.M, out map[string]any) {
	for k, v := range doc {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		if sub, ok := v.(bson.M); ok {
			flatten(p, sub, out)
			continue
		}
		if sub, ok := v.(bson.D); ok {
			m := bson.M{}
			for _, e := range sub {
				m[e.Key] = e.Value
			}
			flatten(p, m, out)
			continue
		}
		out[p] = v
	}
}

// lastPart is the one path of parsed whose last part is name (case
// alike), or "".
func lastPart(parsed map[string]any, name string) string {
	found := ""
	for p := range parsed {
		last := p[strings.LastIndex(p, ".")+1:]
		if strings.EqualFold(last, name) {
			if found != "" {
				return ""
			}
			found = p
		}
	}
	return found
}

// format writes a reported value as a setting's value.
func format(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

// sameNumber tells whether two values are one number (1 and 1.0).
func sameNumber(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x == y
}
