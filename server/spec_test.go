package server_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/mariadb"
	"github.com/dbarena/dbarena/server/postgres"
)

func TestServerParseManaged(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want server.Spec
		err  string
	}{
		{"managed:postgres?shared_buffers=1GB&max_wal_size=4GB", server.Spec{Kind: postgres.ServerKind, Knobs: []server.Knob{{Name: "shared_buffers", Value: "1GB"}, {Name: "max_wal_size", Value: "4GB"}}}, ""},
		{"managed://postgresql?work_mem=64MB", server.Spec{Kind: postgres.ServerKind, Knobs: []server.Knob{{Name: "work_mem", Value: "64MB"}}}, ""},
		{"managed:mariadb?innodb_buffer_pool_size=1G", server.Spec{Kind: mariadb.ServerKind, Knobs: []server.Knob{{Name: "innodb_buffer_pool_size", Value: "1G"}}}, ""},
		{"managed:mysql", server.Spec{Kind: mariadb.ServerKind}, ""},
		{"managed:pgbouncer?shared_buffers=1GB&pgbouncer.default_pool_size=50", server.Spec{Kind: postgres.BouncerKind, Knobs: []server.Knob{{Name: "shared_buffers", Value: "1GB"}, {Name: "pgbouncer.default_pool_size", Value: "50"}}}, ""},
		{"managed:postgres?search_path=%22%24user%22%2C%20public", server.Spec{Kind: postgres.ServerKind, Knobs: []server.Knob{{Name: "search_path", Value: `"$user", public`}}}, ""},
		{"managed:pg1", server.Spec{Name: "pg1"}, ""},
		{"managed:postgres?version=18&shared_buffers=1GB", server.Spec{Kind: postgres.ServerKind, Version: "18", Knobs: []server.Knob{{Name: "shared_buffers", Value: "1GB"}}}, ""},
		{"managed:pgbouncer?version=15.18", server.Spec{Kind: postgres.BouncerKind, Version: "15.18"}, ""},
		{"managed:postgres?version=18&version=15", server.Spec{}, "version given twice (18, 15)"},
		{"managed:pg1?shared_buffers=1GB", server.Spec{}, "takes no settings"},
		{"managed:postgres?shared_buffers", server.Spec{}, `setting "shared_buffers": want name=value`},
		{"managed:", server.Spec{}, "want managed:KIND"},
		{"postgres://u@h/db", server.Spec{}, "want managed:KIND"},
		{"managed:no/such", server.Spec{}, "neither a server kind"},
		{"managed:bad!name", server.Spec{}, "neither a server kind"},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := server.ParseManaged(tc.raw)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, server.ErrBadSpec) {
					t.Errorf("err = %v, want ErrBadSpec with %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// Every problem of a spec is reported at once, each naming its field and
// value.
func TestServerSpecValidate(t *testing.T) {
	errs := server.Spec{
		Kind:  "oracle",
		Name:  "bad name",
		Port:  70000,
		Knobs: []server.Knob{{Name: "port", Value: "5"}, {Name: "work_mem", Value: ""}, {Name: "a", Value: "1"}, {Name: "A", Value: "2"}, {Name: "9x", Value: "1"}},
	}.Validate()
	msg := errors.Join(errs...).Error()
	for _, w := range []string{`unknown server kind "oracle"`, `name "bad name"`, "no data directory", "port 70000",
		"setting work_mem=: no value", "setting A=2: set twice", "setting 9x=1: a setting's name"} {
		if !strings.Contains(msg, w) {
			t.Errorf("lacks %q:\n%s", w, msg)
		}
	}
	for _, e := range errs {
		if !errors.Is(e, server.ErrBadSpec) {
			t.Errorf("%v does not match ErrBadSpec", e)
		}
	}
	if errs := (server.Spec{Kind: postgres.ServerKind, Home: "/h", Knobs: []server.Knob{{Name: "Port", Value: "5"}, {Name: "listen_addresses", Value: "*"}}}).Validate(); len(errs) != 2 || !strings.Contains(errs[0].Error(), "setting Port=5: dbarena sets it (use --port)") {
		t.Errorf("PostgreSQL's reserved settings: %v", errs)
	}
	if errs := (server.Spec{Kind: postgres.ServerKind, Name: "postgres", Home: "/h"}).Validate(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "a kind's name") {
		t.Errorf("a server named after a kind: %v", errs)
	}
	if errs := (server.Spec{Kind: mariadb.ServerKind, Home: "/h", Knobs: []server.Knob{{Name: "bind-address", Value: "0.0.0.0"}, {Name: "innodb-buffer-pool-size", Value: "1G"}, {Name: "innodb_buffer_pool_size", Value: "2G"}}}).Validate(); len(errs) != 2 {
		t.Errorf("MariaDB: %v, want bind-address reserved and innodb_buffer_pool_size twice", errs)
	}
	if errs := (server.Spec{Kind: postgres.BouncerKind, Home: "/h", Knobs: []server.Knob{{Name: "pgbouncer.listen_port", Value: "1"}, {Name: "pgbouncer.pool_mode", Value: "session"}, {Name: "port", Value: "1"}}}).Validate(); len(errs) != 2 {
		t.Errorf("PgBouncer: %v, want listen_port and the backend's port reserved", errs)
	}
	if errs := (server.Spec{Kind: postgres.ServerKind, Home: "/h", Knobs: []server.Knob{{Name: "shared_buffers", Value: "1GB"}}}).Validate(); len(errs) != 0 {
		t.Errorf("a good spec: %v", errs)
	}
}

// CheckKnobs finds a misspelt knob from the binaries' own lists, before
// anything starts, and lets known ones through (any case, MariaDB's
// dashes or underscores).
func TestCheckKnobs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		kind     server.Kind
		good     []server.Knob
		bad      server.Knob
		extraBad server.Knob
	}{
		{postgres.ServerKind, []server.Knob{{"shared_buffers", "1GB"}, {"Max_WAL_Size", "4GB"}, {"myext.setting", "1"}, {"application_name", "x"}}, server.Knob{"shared_bufers", "1GB"}, server.Knob{"wal_sync_methd", "fsync"}},
		{mariadb.ServerKind, []server.Knob{{"innodb_buffer_pool_size", "1G"}, {"innodb-log-file-size", "256M"}}, server.Knob{"innodb_bufer_pool_size", "1G"}, server.Knob{"max_conections", "10"}},
		{postgres.BouncerKind, []server.Knob{{"shared_buffers", "1GB"}, {"pgbouncer.default_pool_size", "20"}}, server.Knob{"sharedbuffers", "1GB"}, server.Knob{"work_mme", "4MB"}},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			spec := server.Spec{Kind: tc.kind, Knobs: tc.good, Getenv: os.Getenv}
			if err := server.CheckKnobs(ctx, spec); err != nil {
				t.Errorf("known knobs: %v", err)
			}
			spec.Knobs = append(spec.Knobs, tc.bad, tc.extraBad)
			err := server.CheckKnobs(ctx, spec)
			var ke *server.KnobError
			if !errors.Is(err, server.ErrKnob) || !errors.As(err, &ke) {
				t.Fatalf("misspelt knobs: %v, want a KnobError", err)
			}
			for _, k := range []server.Knob{tc.bad, tc.extraBad} {
				if !strings.Contains(err.Error(), k.Name) {
					t.Errorf("%v does not name %s", err, k.Name)
				}
			}
			if tc.kind == postgres.ServerKind && !strings.Contains(err.Error(), "did you mean shared_buffers?") {
				t.Errorf("%v does not suggest shared_buffers", err)
			}
		})
	}
}
