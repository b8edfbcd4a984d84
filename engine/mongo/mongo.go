// Package mongo is dbarena's MongoDB engine, built on the official Go
// driver (go.mongodb.org/mongo-driver/v2).
//
// It serves targets of the form
//
//	mongodb://user@host:port/database?replicaSet=rs0&authSource=admin&w=majority&readConcernLevel=majority&readPreference=primary
//
// The path names the database the workload's collections live in. Every
// query parameter is the driver's own (see the connection string
// specification): write concern (w, journal, wtimeoutMS), read concern
// (readConcernLevel), read preference (readPreference), pool and timeout
// settings. The password comes from engine.Target.Password, never from the
// URL. The settings in force, as the driver resolved them, are reported
// with the server's parameters in ServerInfo.
//
// An Engine holds one driver Client, whose pool has no size limit unless
// the URL sets maxPoolSize, so that no worker waits for another's
// connection. Each engine.Conn is one explicit session on it: a worker's
// operations run in its own session, and its multi-document transactions
// start there (Conn.Session). Workloads reach the driver through *Conn.
//
// Errors are classified through the driver's typed errors and labels:
// TransientTransactionError and UnknownTransactionCommitResult and write
// conflicts are retryable (engine.ClassSerialization), NetworkError means
// the connection is gone (engine.ClassConnLost), duplicate keys are
// engine.ClassUniqueViolation.
//
// Importing the package registers the engine (schemes "mongodb" and
// "mongodb+srv") with engine.Register.
package mongo

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
)

// Engine is an open MongoDB target. It is safe for concurrent use.
type Engine struct {
	target engine.Target
	client *mongo.Client
	db     string
	// settings are the client-side settings in force, for ServerInfo.
	settings map[string]string
	// losses counts the times a server holding data went from known to
	// Unknown in the client's view (a network error or a failed
	// heartbeat, after which the driver drops the server's pooled
	// connections): what each Conn's Rejoined reports.
	losses atomic.Int64
}

var _ engine.Engine = (*Engine)(nil)

// Open builds the client from t and checks within opts.ConnectTimeout that
// the server answers and accepts the login. Errors wrap engine.ErrBadTarget,
// engine.ErrConnect or engine.ErrAuth; their text never holds the password.
func Open(ctx context.Context, t engine.Target, opts engine.Options) (engine.Engine, error) {
	co, db, err := ClientOptions(t, opts)
	if err != nil {
		return nil, err
	}
	e := &Engine{target: t, db: db, settings: clientSettings(co)}
	co.SetServerMonitor(&event.ServerMonitor{ServerDescriptionChanged: e.serverChanged})
	client, err := mongo.Connect(co)
	if err != nil {
		return nil, &engine.TargetError{Target: t.Redacted(), Field: "url", Err: fmt.Errorf("%w: %v", engine.ErrBadTarget, err)}
	}
	e.client = client
	pctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
	defer cancel()
	if err := client.Ping(pctx, nil); err != nil {
		client.Disconnect(context.Background())
		return nil, e.connectError(err)
	}
	return e, nil
}

// serverChanged counts a loss when a server that holds data (a
// standalone, a replica set's primary or secondary, a mongos) becomes
// Unknown. The driver calls it once per change of a server's description,
// never per operation.
func (e *Engine) serverChanged(ev *event.ServerDescriptionChangedEvent) {
	switch ev.PreviousDescription.Kind {
	case "Standalone", "RSPrimary", "RSSecondary", "Mongos":
		if ev.NewDescription.Kind == "Unknown" {
			e.losses.Add(1)
		}
	}
}

// ClientOptions builds the driver's options for t (the URL without its
// password, then the password from t.Password) and returns the database
// named by the URL's path. Without maxPoolSize in the URL the pool has no
// limit. opts.ConnectTimeout bounds connecting and server selection.
func ClientOptions(t engine.Target, opts engine.Options) (*options.ClientOptions, string, error) {
	bad := func(field string, err error) error {
		return &engine.TargetError{Target: t.Redacted(), Field: field, Err: fmt.Errorf("%w: %v", engine.ErrBadTarget, err)}
	}
	if t.URL == nil {
		return nil, "", bad("url", errors.New("no URL"))
	}
	db := strings.TrimPrefix(t.URL.Path, "/")
	switch {
	case db == "":
		return nil, "", bad("database", errors.New("the URL names no database: write it as the path, mongodb://host:27017/bench"))
	case strings.ContainsAny(db, `/\. "$`):
		return nil, "", bad("database", fmt.Errorf("database name %q has a character MongoDB does not allow", db))
	}
	u := *t.URL // holds no password: engine.ParseTarget took it out
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, "", bad("url", err)
	}
	co := options.Client().ApplyURI(u.String())
	// The driver keeps the URL's errors until Connect; validate now so a
	// bad parameter is named before anything runs.
	if err := co.Validate(); err != nil {
		return nil, "", bad("url", err)
	}
	if co.Auth != nil && t.Password.IsSet() {
		co.Auth.Password = t.Password.Reveal()
		co.Auth.PasswordSet = true
	}
	if !q.Has("maxPoolSize") && !q.Has("maxpoolsize") {
		co.SetMaxPoolSize(0)
	}
	if opts.ConnectTimeout > 0 {
		co.SetConnectTimeout(opts.ConnectTimeout)
		if !q.Has("serverSelectionTimeoutMS") && !q.Has("serverselectiontimeoutms") {
			co.SetServerSelectionTimeout(opts.ConnectTimeout)
		}
	}
	co.SetAppName("dbarena")
	return co, db, nil
}

// clientSettings describes the concerns and read preference the client
// uses, as the result file's settings record them ("" fields are the
// server's defaults).
func clientSettings(co *options.ClientOptions) map[string]string {
	s := map[string]string{
		"client.writeConcern":   "(server default)",
		"client.readConcern":    "(server default)",
		"client.readPreference": "primary",
	}
	if wc := co.WriteConcern; wc != nil {
		parts := []string{}
		if wc.W != nil {
			parts = append(parts, fmt.Sprintf("w=%v", wc.W))
		}
		if wc.Journal != nil {
			parts = append(parts, fmt.Sprintf("journal=%v", *wc.Journal))
		}
		if len(parts) > 0 {
			s["client.writeConcern"] = strings.Join(parts, ",")
		}
	}
	if rc := co.ReadConcern; rc != nil && rc.Level != "" {
		s["client.readConcern"] = rc.Level
	}
	if rp := co.ReadPreference; rp != nil {
		s["client.readPreference"] = rp.Mode().String()
	}
	if co.MaxPoolSize != nil {
		s["client.maxPoolSize"] = fmt.Sprint(*co.MaxPoolSize)
	}
	return s
}

// MongoDB error codes the engine acts on.
const (
	codeAuthenticationFailed = 18
	codeWriteConflict        = 112
	codeLockTimeout          = 24
)

func (e *Engine) connectError(err error) error {
	user, host := e.target.Username(), e.target.Host()
	var se mongo.ServerError
	if errors.As(err, &se) && se.HasErrorCode(codeAuthenticationFailed) {
		return &engine.TargetError{Target: e.target.Redacted(), Field: "password", Err: &engine.ConnectError{
			Msg:   fmt.Sprintf("%v: %v: server rejected login of user %q at %s", engine.ErrConnect, engine.ErrAuth, user, host),
			Auth:  true,
			Cause: err,
		}}
	}
	return &engine.TargetError{Target: e.target.Redacted(), Field: "host", Err: &engine.ConnectError{
		Msg:   fmt.Sprintf("%v: %s@%s: %v", engine.ErrConnect, user, host, err),
		Cause: err,
	}}
}

// Name returns "mongodb".
func (e *Engine) Name() string { return "mongodb" }

// Dialect returns the MongoDB dialect (error classification only).
func (e *Engine) Dialect() engine.Dialect { return Dialect{} }

// Client is the engine's driver client.
func (e *Engine) Client() *mongo.Client { return e.client }

// Connect starts a new session on the engine's client.
func (e *Engine) Connect(ctx context.Context) (engine.Conn, error) {
	sess, err := e.client.StartSession()
	if err != nil {
		return nil, e.connectError(err)
	}
	return &Conn{e: e, db: e.client.Database(e.db), sess: sess, losses: e.losses.Load()}, nil
}

// ServerInfo reports "MongoDB <version>" and, as settings, the client's
// concerns and read preference ("client."), every server parameter
// (getParameter, "param."), the server's command line ("cmdline.") and a
// snapshot of serverStatus's configuration-like fields ("status.").
func (e *Engine) ServerInfo(ctx context.Context) (engine.ServerInfo, error) {
	info := engine.ServerInfo{Settings: map[string]string{}}
	for k, v := range e.settings {
		info.Settings[k] = v
	}
	admin := e.client.Database("admin")
	var build bson.M
	if err := admin.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&build); err != nil {
		return info, fmt.Errorf("mongodb: buildInfo: %w", err)
	}
	info.Version = fmt.Sprintf("MongoDB %v", build["version"])
	var params bson.M
	if err := admin.RunCommand(ctx, bson.D{{Key: "getParameter", Value: "*"}}).Decode(&params); err != nil {
		return info, fmt.Errorf("mongodb: getParameter: %w", err)
	}
	// The reply's status, cluster time and operation time are not
	// parameters: the times would make every two result files differ.
	for _, k := range []string{"ok", "$clusterTime", "operationTime"} {
		delete(params, k)
	}
	flatten(info.Settings, "param.", params)
	var cmdline bson.M
	if err := admin.RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&cmdline); err == nil {
		if parsed, ok := asDoc(cmdline["parsed"]); ok {
			flatten(info.Settings, "cmdline.", parsed)
		}
	}
	var status bson.M
	if err := admin.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&status); err != nil {
		return info, fmt.Errorf("mongodb: serverStatus: %w", err)
	}
	// Configuration-like fields only: counters and uptimes would make
	// every two result files differ.
	for _, key := range []string{"host", "process", "storageEngine.name", "storageEngine.persistent",
		"storageEngine.supportsCommittedReads", "repl.setName", "repl.isWritablePrimary", "repl.hosts",
		"wiredTiger.cache.maximum bytes configured",
		"wiredTiger.concurrentTransactions.read.totalTickets", "wiredTiger.concurrentTransactions.write.totalTickets"} {
		if v, ok := lookup(status, key); ok {
			info.Settings["status."+key] = scalar(v)
		}
	}
	return info, nil
}

// asDoc returns v as a bson.M when it is a document (the driver decodes
// embedded documents as bson.D).
func asDoc(v any) (bson.M, bool) {
	switch x := v.(type) {
	case bson.M:
		return x, true
	case bson.D:
		m := make(bson.M, len(x))
		for _, e := range x {
			m[e.Key] = e.Value
		}
		return m, true
	}
	return nil, false
}

var _ engine.ProcessReporter = (*Engine)(nil)

// ServerProcess reads mongod's pid (serverStatus) and data directory
// (getCmdLineOpts' storage.dbPath).
func (e *Engine) ServerProcess(ctx context.Context) (engine.ServerProcess, error) {
	sp := engine.ServerProcess{Name: "mongod"}
	admin := e.client.Database("admin")
	var status struct {
		PID     int64  `bson:"pid"`
		Process string `bson:"process"`
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&status); err != nil {
		return sp, fmt.Errorf("mongodb: serverStatus: %w", err)
	}
	sp.PID = int(status.PID)
	if status.Process != "" {
		sp.Name = status.Process
	}
	var opts struct {
		Parsed struct {
			Storage struct {
				DBPath string `bson:"dbPath"`
			} `bson:"storage"`
		} `bson:"parsed"`
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&opts); err == nil {
		sp.DataDir = opts.Parsed.Storage.DBPath
	}
	return sp, nil
}

// lookup finds a dotted path in a document (keys may hold spaces).
func lookup(doc bson.M, path string) (any, bool) {
	var cur any = doc
	for _, k := range strings.Split(path, ".") {
		m, ok := asDoc(cur)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// flatten writes doc's leaves into dst under prefix + dotted path.
func flatten(dst map[string]string, prefix string, doc bson.M) {
	for k, v := range doc {
		if m, ok := asDoc(v); ok {
			flatten(dst, prefix+k+".", m)
			continue
		}
		dst[prefix+k] = scalar(v)
	}
}

// scalar formats one BSON value for the settings map.
func scalar(v any) string {
	switch x := v.(type) {
	case bson.A:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = scalar(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case bson.D:
		m, _ := asDoc(x)
		return scalar(m)
	case bson.M:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + scalar(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case bson.DateTime:
		return x.Time().UTC().Format(time.RFC3339)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// Close disconnects the client.
func (e *Engine) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return e.client.Disconnect(ctx)
}

// ConnOf returns c as a MongoDB connection, or an error naming what c is
// (a workload's MongoDB implementation handed another engine's
// connection).
func ConnOf(c engine.Conn) (*Conn, error) {
	mc, ok := c.(*Conn)
	if !ok {
		return nil, fmt.Errorf("mongodb: a MongoDB connection is needed, not %T", c)
	}
	return mc, nil
}

// Conn is one session on the engine's client. It is not safe for
// concurrent use.
type Conn struct {
	e    *Engine
	db   *mongo.Database
	sess *mongo.Session
	// losses is the engine's count of losses Rejoined last reported.
	losses int64
}

var (
	_ engine.Conn     = (*Conn)(nil)
	_ engine.Rejoiner = (*Conn)(nil)
)

// Rejoined tells whether a server was lost since the Conn was opened or
// since Rejoined last returned true.
func (c *Conn) Rejoined() bool {
	n := c.e.losses.Load()
	if n == c.losses {
		return false
	}
	c.losses = n
	return true
}

// DB is the target's database.
func (c *Conn) DB() *mongo.Database { return c.db }

// Session is the connection's session: transactions start on it, and
// operations run in it when their context comes from Ctx.
func (c *Conn) Session() *mongo.Session { return c.sess }

// Ctx returns ctx carrying the connection's session, for the driver's
// operations that belong to it (every operation of a transaction).
func (c *Conn) Ctx(ctx context.Context) context.Context {
	return mongo.NewSessionContext(ctx, c.sess)
}

// Ping runs the ping command.
func (c *Conn) Ping(ctx context.Context) error {
	return c.e.client.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
}

// Catalog returns the collections' catalog.
func (c *Conn) Catalog() engine.Catalog { return catalog{c} }

// Close ends the session (aborting a transaction left open).
func (c *Conn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.sess.EndSession(ctx)
	return nil
}

// Commit commits the session's transaction. A commit whose outcome is
// unknown (the UnknownTransactionCommitResult label: a network error or a
// write concern timeout during the commit) is retried, as the driver's
// transaction rules ask, up to three times; a commit is idempotent within
// its transaction, so a retry never applies the transaction twice.
func (c *Conn) Commit(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		err = c.sess.CommitTransaction(ctx)
		if err == nil || !hasLabel(err, "UnknownTransactionCommitResult") || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// Abort aborts the session's transaction if one is open; its error is the
// driver's (an abort after a failed operation may find nothing to abort).
//
// When ctx has ended, an operation of the transaction may have been
// abandoned after it was written: it can reach the server after the
// abort, which then finds nothing to abort, and start the transaction
// there; the server would keep it, with its locks, until its transaction
// lifetime limit (a minute by default). So the abort is followed by a
// fence: a read in a transaction with the session's next number, aborted
// at once. The server keeps a session's highest transaction number, and
// refuses an operation of an older transaction that arrives after it (or
// aborts the older one when it came before).
func (c *Conn) Abort(ctx context.Context) {
	if !c.sess.TransactionRunning() {
		return
	}
	// An abort runs even when ctx has ended, so the session is clean for
	// the next transaction.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = c.sess.AbortTransaction(actx)
	if ctx.Err() == nil {
		return
	}
	if c.sess.StartTransaction() != nil {
		return
	}
	_ = c.db.Collection(fenceCollection).FindOne(mongo.NewSessionContext(actx, c.sess), bson.D{}).Err()
	_ = c.sess.AbortTransaction(actx)
}

// fenceCollection is what Abort's fence reads; it need not exist, and no
// transaction writes to it.
const fenceCollection = "dbarena_abort_fence"

func hasLabel(err error, label string) bool {
	var le mongo.LabeledError
	return errors.As(err, &le) && le.HasErrorLabel(label)
}

// Dialect is MongoDB's error classification.
type Dialect struct{}

var _ engine.Dialect = Dialect{}

// Name returns "mongodb".
func (Dialect) Name() string { return "mongodb" }

// Family returns engine.FamilyMongo.
func (Dialect) Family() engine.Family { return engine.FamilyMongo }

// Capabilities states what MongoDB can do: multi-document transactions
// (on a replica set) at their one level, which no session setting
// changes, and a driver that replaces lost connections itself.
func (Dialect) Capabilities() engine.Capabilities { return capabilities }

var capabilities = engine.Capabilities{
	Kind: engine.KindMongo, Family: engine.FamilyMongo,
	Transactions: true, Rejoins: true,
}

// Classify reads the driver's labels and codes: transient transaction
// errors, unknown commit results, write conflicts and lock timeouts may be
// retried; network errors lose the connection; duplicate keys are unique
// violations.
func (Dialect) Classify(err error) engine.ErrorClass {
	switch {
	case err == nil:
		return engine.ClassOther
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return engine.ClassCanceled
	case mongo.IsNetworkError(err) || errors.Is(err, mongo.ErrClientDisconnected):
		// Before the transaction labels: a connection lost inside a
		// transaction is labelled TransientTransactionError too.
		return engine.ClassConnLost
	case hasLabel(err, "TransientTransactionError") || hasLabel(err, "UnknownTransactionCommitResult"):
		return engine.ClassSerialization
	case mongo.IsDuplicateKeyError(err):
		return engine.ClassUniqueViolation
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		switch {
		case se.HasErrorCode(codeWriteConflict):
			return engine.ClassSerialization
		case se.HasErrorCode(codeLockTimeout):
			return engine.ClassDeadlock
		}
	}
	return engine.ClassOther
}
