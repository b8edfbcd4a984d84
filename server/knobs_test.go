package server

import (
	"errors"
	"strings"
	"testing"
)

func TestServerPgMatches(t *testing.T) {
	sb := pgSetting{name: "shared_buffers", setting: "131072", unit: "8kB", vartype: "integer", minVal: "16"}
	wb := pgSetting{name: "wal_buffers", setting: "512", unit: "8kB", vartype: "integer", minVal: "-1"}
	mw := pgSetting{name: "max_wal_size", setting: "4096", unit: "MB", vartype: "integer", minVal: "2"}
	ct := pgSetting{name: "checkpoint_timeout", setting: "300", unit: "s", vartype: "integer", minVal: "30"}
	cd := pgSetting{name: "vacuum_cost_delay", setting: "2", unit: "ms", vartype: "real", minVal: "-1"}
	mc := pgSetting{name: "max_connections", setting: "100", vartype: "integer"}
	rp := pgSetting{name: "random_page_cost", setting: "1.1", vartype: "real"}
	fs := pgSetting{name: "fsync", setting: "on", vartype: "bool"}
	sc := pgSetting{name: "synchronous_commit", setting: "off", vartype: "enum"}
	sp := pgSetting{name: "search_path", setting: `"$user", public`, vartype: "string"}
	for _, tc := range []struct {
		want string
		s    pgSetting
		ok   bool
	}{
		{"1GB", sb, true},
		{"1024MB", sb, true},
		{"'1GB'", sb, true},
		{"1 GB", sb, true},
		{"131072", sb, true},
		{"1048576kB", sb, true},
		{"1048577kB", sb, true}, // rounded to 8kB by the server
		{"2GB", sb, false},
		{"1GB", ct, false}, // memory for a time
		{"-1", wb, true},   // chosen by the server
		{"-1", sb, false},
		{"4GB", mw, true},
		{"4096", mw, true},
		{"5min", ct, true},
		{"300s", ct, true},
		{"300", ct, true},
		{"301", ct, false},
		{"2ms", cd, true},
		{"2000us", cd, true},
		{"100", mc, true},
		{"101", mc, false},
		{"100MB", mc, false},
		{"1.1", rp, true},
		{"1.10", rp, true},
		{"1.2", rp, false},
		{"on", fs, true},
		{"true", fs, true},
		{"yes", fs, true},
		{"1", fs, true},
		{"off", fs, false},
		{"banana", fs, false},
		{"OFF", sc, true},
		{"local", sc, false},
		{`"$user",public`, sp, true},
		{"public", sp, false},
	} {
		if got := pgMatches(tc.want, tc.s); got != tc.ok {
			t.Errorf("pgMatches(%q, %s=%s %s) = %v, want %v", tc.want, tc.s.name, tc.s.setting, tc.s.unit, got, tc.ok)
		}
	}
}

func TestServerLooseMatches(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"64M", "67108864", true},
		{"64m", "67108864", true},
		{"1G", "1073741824", true},
		{"67108864", "67108864", true},
		{"100M", "134217728", false},
		{"ON", "ON", true},
		{"1", "ON", true},
		{"0", "OFF", true},
		{"off", "ON", false},
		{"O_DIRECT", "O_DIRECT", true},
		{"o_direct", "O_DIRECT", true},
		{"fsync", "O_DIRECT", false},
		{"NO_ENGINE_SUBSTITUTION,STRICT_TRANS_TABLES", "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION", true},
		{"STRICT_TRANS_TABLES", "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION", false},
		{"transaction", "transaction", true},
		{"20", "20", true},
		{"0.5", "0.5", true},
	} {
		if got := looseMatches(tc.want, tc.got); got != tc.ok {
			t.Errorf("looseMatches(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
}

func TestServerKnobProblems(t *testing.T) {
	pgLog := `2026-11-23 08:43:40.456 GMT [10127] LOG:  unrecognized configuration parameter "shared_bufers" in file "/x/data/dbarena.conf" line 3
2026-11-23 08:43:43.340 UTC [10353] LOG:  invalid value for parameter "work_mem": "1XB"
2026-11-23 08:43:43.340 UTC [10353] HINT:  Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".
2026-11-23 08:43:40.456 GMT [10127] FATAL:  configuration file "/x/data/dbarena.conf" contains errors`
	got := knobProblems(Postgres, pgLog, []Knob{{"shared_bufers", "1GB"}, {"work_mem", "1XB"}, {"shared_buffers", "1GB"}, {"max_wal_size", "2GB"}})
	want := []string{
		`postgres setting shared_bufers=1GB: unrecognized configuration parameter "shared_bufers" in file "/x/data/dbarena.conf" line 3`,
		`postgres setting work_mem=1XB: invalid value for parameter "work_mem": "1XB" (Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".)`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].Error() != want[i] || !errors.Is(got[i], ErrKnob) {
			t.Errorf("got  %s\nwant %s", got[i], want[i])
		}
	}

	myLog := `2026-11-23  8:43:50 0 [Note] InnoDB: innodb_buffer_pool_size_max=8388614m, innodb_buffer_pool_size=64m
2026-11-23  8:43:55 0 [ERROR] /usr/sbin/mariadbd: unknown variable 'innodb-log-file-sise=1G'
2026-11-23  8:43:55 0 [ERROR] Aborting`
	got = knobProblems(MariaDB, myLog, []Knob{{"innodb_buffer_pool_size", "64M"}, {"innodb_log_file_sise", "1G"}})
	if len(got) != 1 || !strings.Contains(got[0].Error(), "mariadb setting innodb_log_file_sise=1G: /usr/sbin/mariadbd: unknown variable") {
		t.Errorf("MariaDB: %v (a note that echoes a setting blames nothing)", got)
	}

	bLog := `2026-11-23 08:44:12.781 UTC [11193] ERROR unknown parameter: pgbouncer/default_pool_sise`
	got = knobProblems(PgBouncer, bLog, []Knob{{"pgbouncer.default_pool_sise", "5"}, {"default_pool_sise", "5"}})
	if len(got) != 1 || got[0].Error() != "pgbouncer setting pgbouncer.default_pool_sise=5: unknown parameter: pgbouncer/default_pool_sise" {
		t.Errorf("PgBouncer: %v", got)
	}
}

func TestServerParseStat(t *testing.T) {
	state, ticks, ok := parseStat([]byte("4242 (postgres: a) b) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1 2 3"))
	if !ok || state != 'S' || ticks != 987654 {
		t.Errorf("parseStat = %c %d %v", state, ticks, ok)
	}
	if _, _, ok := parseStat([]byte("garbage")); ok {
		t.Error("parseStat(garbage) ok")
	}
}

func TestServerPgConf(t *testing.T) {
	for in, want := range map[string]string{"1GB": "'1GB'", "it's": "'it''s'", `C:\x`: `'C:\\x'`, `"$user", public`: `'"$user", public'`} {
		if got := pgConf(in); got != want {
			t.Errorf("pgConf(%q) = %s, want %s", in, got, want)
		}
	}
}
