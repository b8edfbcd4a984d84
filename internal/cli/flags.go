package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/workload"
)

// seconds is a duration flag that also takes plain seconds ("60"), as
// sysbench's --time does.
type seconds time.Duration

func (d *seconds) String() string { return time.Duration(*d).String() }
func (d *seconds) Type() string   { return "duration" }
func (d *seconds) Set(s string) error {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		*d = seconds(n * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration like 60s, 5m or plain seconds")
	}
	*d = seconds(v)
	return nil
}

// intList is a comma-separated list of integers ("1,2,4,8").
type intList []int

func (l *intList) String() string {
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}
func (l *intList) Type() string { return "ints" }
func (l *intList) Set(s string) error {
	var out []int
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return fmt.Errorf("want a number or a comma-separated list like 1,2,4,8")
		}
		out = append(out, v)
	}
	*l = out
	return nil
}

// targetFlags are the flags every command that talks to a database has.
type targetFlags struct {
	target         string
	passwordFile   string
	connectTimeout seconds
	// MongoDB: the concerns and read preference, as URL parameters.
	writeConcern, readConcern, readPreference string
	// fs is the flag set the flags are on (nil for a plan's targets).
	fs *pflag.FlagSet
	// shards is the count of the sharded run the target is opened for
	// (0: none): session.Resolve refuses a target every shard cannot
	// reach.
	shards int
}

// mongoParams are the flags that set a mongodb:// target's parameters.
func (f *targetFlags) mongoParams() []struct{ flag, param, value string } {
	return []struct{ flag, param, value string }{
		{"write-concern", "w", f.writeConcern},
		{"read-concern", "readConcernLevel", f.readConcern},
		{"read-preference", "readPreference", f.readPreference},
	}
}

func (f *targetFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.target, "target", "", "database URL, optionally labelled: [label=]postgres://user@host:port/db, mysql://…, mongodb://…/db, sqlite:///path.db, managed:postgres?shared_buffers=1GB (a managed server for this command), managed:NAME (a started one) (default: the embedded SQLite file in the data directory)")
	fs.StringVar(&f.passwordFile, "password-file", "", "read the password from this file (else from the URL or the engine's variable: "+strings.Join(engine.PasswordEnvs(), ", ")+")")
	f.connectTimeout = seconds(10 * time.Second)
	fs.Var(&f.connectTimeout, "connect-timeout", "give up connecting after this long")
	fs.StringVar(&f.writeConcern, "write-concern", "", "MongoDB: write concern w (1, majority, …); the same as ?w= in the URL")
	fs.StringVar(&f.readConcern, "read-concern", "", "MongoDB: read concern level (local, majority, snapshot, …); the same as ?readConcernLevel=")
	fs.StringVar(&f.readPreference, "read-preference", "", "MongoDB: read preference (primary, primaryPreferred, secondary, nearest, …); the same as ?readPreference=")
}

// applyMongoParams writes the MongoDB flags into t's URL. A flag given for
// another engine, or contradicting the URL, is a usage error naming it.
func (f *targetFlags) applyMongoParams(t *engine.Target) error {
	var u *url.URL
	for _, p := range f.mongoParams() {
		if p.value == "" {
			continue
		}
		if r, ok := engine.Lookup(t.URL.Scheme); !ok || r.Family != engine.FamilyMongo {
			return &UsageError{fmt.Errorf("--%s %s: only MongoDB targets take it (target %s)", p.flag, p.value, t.Redacted())}
		}
		if u == nil {
			c := *t.URL
			u = &c
		}
		q := u.Query()
		if have := q.Get(p.param); have != "" && have != p.value {
			return &UsageError{fmt.Errorf("--%s %s: the target URL says %s=%s", p.flag, p.value, p.param, have)}
		}
		q.Set(p.param, p.value)
		u.RawQuery = q.Encode()
	}
	if u != nil {
		t.URL = u
	}
	return nil
}

// open parses the target flag (or picks the embedded default) and opens
// its engine (session.Resolve) for w, which it refuses before any work
// when w cannot run there with its options (nil: any engine).
func (f *targetFlags) open(ctx context.Context, st *State, w workload.Workload) (*session.Resolved, error) {
	if f.connectTimeout <= 0 {
		return nil, &UsageError{fmt.Errorf("--connect-timeout %s: must be positive", f.connectTimeout.String())}
	}
	if f.target == "" && f.fs != nil && f.fs.Changed("target") {
		return nil, &UsageError{errors.New(`--target "": empty; leave the flag out for the embedded default`)}
	}
	return session.Resolve(ctx, session.TargetSpec{
		URL:            f.target,
		PasswordFile:   f.passwordFile,
		ConnectTimeout: time.Duration(f.connectTimeout),
		Rewrite:        f.applyMongoParams,
		Workload:       w,
		Shards:         f.shards,
	}, st.env())
}
