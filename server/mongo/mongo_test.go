package mongo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/server"
	mserver "github.com/dbarena/dbarena/server/mongo"
	_ "github.com/dbarena/dbarena/server/postgres"
)

// These tests start real mongods: the one scripts/testservers install
// puts in the cache (or on PATH, or in DBARENA_MONGOD). They fail, never
// skip, without one; the error says how to get it.

func start(t *testing.T, spec server.Spec) *server.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := server.Start(ctx, spec)
	if err != nil {
		t.Fatalf("Start(%v): %v", spec.Knobs, err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return s
}

// client connects to the server's target as bench.
func client(t *testing.T, s *server.Server) *mongo.Client {
	t.Helper()
	tg := s.Target()
	c, err := mongo.Connect(options.Client().ApplyURI(tg.URL.String()).
		SetAuth(options.Credential{Username: server.User, Password: tg.Password.Reveal(), PasswordSet: true, AuthSource: "admin"}).
		SetServerSelectionTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The server may be stopped by now: no waiting for it to end
		// the sessions.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		c.Disconnect(ctx)
	})
	return c
}

func TestManagedMongo(t *testing.T) {
	home := t.TempDir()
	s := start(t, server.Spec{Kind: mserver.ServerKind, Name: "m1", Home: home, Knobs: []server.Knob{
		{Name: "wiredTigerCacheSizeGB", Value: "0.25"}, {Name: "transactionLifetimeLimitSeconds", Value: "90"}}})
	tg := s.Target()
	q := tg.URL.Query()
	if tg.URL.Scheme != "mongodb" || q.Get("replicaSet") != "rs0" || q.Get("authSource") != "admin" || tg.URL.Path != "/bench" {
		t.Errorf("Target() = %s", tg.Redacted())
	}
	if strings.Contains(tg.Redacted(), tg.Password.Reveal()) {
		t.Errorf("the redacted URL has the password")
	}
	if got := s.Settings(); got["wiredTigerCacheSizeGB"] != "0.25" || got["transactionLifetimeLimitSeconds"] != "90" {
		t.Errorf("Settings() = %v", got)
	}
	if !strings.HasPrefix(s.Version(), "MongoDB ") {
		t.Errorf("Version() = %q", s.Version())
	}
	ctx := context.Background()
	c := client(t, s)
	var st struct {
		WiredTiger struct {
			Cache map[string]any `bson:"cache"`
		} `bson:"wiredTiger"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(st.WiredTiger.Cache["maximum bytes configured"]); got != "268435456" {
		t.Errorf("WiredTiger's cache: %v bytes, want 256 MiB", got)
	}
	coll := c.Database("bench").Collection("t")
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.WithTransaction(ctx, func(ctx context.Context) (any, error) {
		return coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	}); err != nil {
		t.Fatalf("transaction: %v", err)
	}
	sess.EndSession(ctx)

	// Restart keeps the data; the node is primary again.
	pid := s.PID()
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if s.PID() == pid || !s.Alive() {
		t.Errorf("after Restart: PID %d (was %d), alive %v", s.PID(), pid, s.Alive())
	}
	c2 := client(t, s)
	n, err := c2.Database("bench").Collection("t").CountDocuments(ctx, bson.D{})
	if err != nil || n != 1 {
		t.Errorf("after Restart: %d documents, %v", n, err)
	}

	list, err := server.List(home)
	if err != nil || len(list) != 1 || list[0].Name() != "m1" || list[0].Kind() != mserver.ServerKind {
		t.Errorf("List: %v %v", list, err)
	}
	dirs := []string{s.Dir()}
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if alive(s.PID()) {
		t.Errorf("mongod %d runs after Stop", s.PID())
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", d, err)
		}
	}
}

func TestManagedMongoBadKnobs(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct{ knob, want string }{
		{"wiredTigerCacheSizeGB=banana", "Error parsing option"},
		{"noSuchParameterAtAll=1", "Unknown --setParameter"},
		{"featureCompatibilityVersion=6.0", "Cannot use --setParameter to set"},
		{"cpu=false", "a switch of mongod"},
		{"wiredTigerCacheSizeGb=1", "mongod's option is wiredTigerCacheSizeGB"},
		{"wiredTigerCacheSizGB=1", "did you mean wiredTigerCacheSizeGB?"},
	} {
		t.Run(tc.knob, func(t *testing.T) {
			k, _ := server.ParseKnob(tc.knob)
			_, err := server.Start(context.Background(), server.Spec{Kind: mserver.ServerKind, Knobs: []server.Knob{k}, Home: home})
			if !errors.Is(err, server.ErrKnob) || !strings.Contains(err.Error(), tc.knob) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v; want ErrKnob naming %s and %q", err, tc.knob, tc.want)
			}
			if ents, _ := os.ReadDir(filepath.Join(home, "servers")); len(ents) > 0 {
				t.Errorf("left behind: %v", ents)
			}
		})
	}
	errs := server.Spec{Kind: mserver.ServerKind, Home: home, Knobs: []server.Knob{{Name: "keyFile", Value: "/x"}}}.Validate()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "keyFile=/x: dbarena sets it itself") {
		t.Errorf("Validate: %v", errs)
	}
	errs = server.Spec{Kind: "postgres", Home: home, Programs: map[string]string{"mongod": "/x"}}.Validate()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "--mongod /x") {
		t.Errorf("Validate: %v", errs)
	}
}

func TestManagedMongoNotInstalled(t *testing.T) {
	env := map[string]string{"PATH": t.TempDir(), "HOME": t.TempDir()}
	_, err := server.Start(context.Background(), server.Spec{Kind: mserver.ServerKind, Home: t.TempDir(), Getenv: func(k string) string { return env[k] }})
	if !errors.Is(err, server.ErrNotInstalled) || !strings.Contains(err.Error(), "scripts/testservers install") ||
		!strings.Contains(err.Error(), filepath.Join(env["HOME"], ".cache", "dbarena", "mongod-6.0.5")) {
		t.Errorf("err = %v", err)
	}
	env["DBARENA_MONGOD"] = "/nonexistent/mongod"
	_, err = server.Start(context.Background(), server.Spec{Kind: mserver.ServerKind, Home: t.TempDir(), Getenv: func(k string) string { return env[k] }})
	if !errors.Is(err, server.ErrNotInstalled) || !strings.Contains(err.Error(), "DBARENA_MONGOD /nonexistent/mongod") {
		t.Errorf("err = %v", err)
	}
}

// A mongod started for a dbarena process that is killed (SIGKILL) is
// stopped and removed by the next Reap.
func TestManagedMongoReap(t *testing.T) {
	if home := os.Getenv("MONGO_TEST_OWNER_HOME"); home != "" {
		s, err := server.Start(context.Background(), server.Spec{Kind: mserver.ServerKind, Home: home, Owned: true})
		if err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("started " + s.Name() + "\n")
		time.Sleep(time.Hour)
	}
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestManagedMongoReap$")
	cmd.Env = append(os.Environ(), "MONGO_TEST_OWNER_HOME="+home)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	nr, _ := out.Read(buf)
	if !strings.HasPrefix(string(buf[:nr]), "started ") {
		_ = cmd.Process.Kill()
		t.Fatalf("owner: %s", buf[:nr])
	}
	list, err := server.List(home)
	if err != nil || len(list) != 1 {
		t.Fatalf("List: %v %v", list, err)
	}
	pid := list[0].PID()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if !alive(pid) {
		t.Fatalf("mongod %d ended with its owner", pid)
	}
	reaped, err := server.Reap(context.Background(), home)
	if err != nil || len(reaped) != 1 {
		t.Fatalf("Reap: %v %v", reaped, err)
	}
	if alive(pid) {
		t.Errorf("mongod %d runs after Reap", pid)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "servers")); len(ents) > 0 {
		t.Errorf("left behind: %v", ents)
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}
