package server

import (
	"errors"
	"strings"
	"testing"
)

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
		if got := LooseMatches(tc.want, tc.got); got != tc.ok {
			t.Errorf("looseMatches(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
}

func TestServerKnobProblems(t *testing.T) {
	pgLog := `2026-11-23 08:43:40.456 GMT [10127] LOG:  unrecognized configuration parameter "shared_bufers" in file "/x/data/dbarena.conf" line 3
2026-11-23 08:43:43.340 UTC [10353] LOG:  invalid value for parameter "work_mem": "1XB"
2026-11-23 08:43:43.340 UTC [10353] HINT:  Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".
2026-11-23 08:43:40.456 GMT [10127] FATAL:  configuration file "/x/data/dbarena.conf" contains errors`
	got := knobProblems(&KindDef{Kind: "postgres"}, pgLog, []Knob{{"shared_bufers", "1GB"}, {"work_mem", "1XB"}, {"shared_buffers", "1GB"}, {"max_wal_size", "2GB"}})
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
	got = knobProblems(&KindDef{Kind: "mariadb", Dashes: true}, myLog, []Knob{{"innodb_buffer_pool_size", "64M"}, {"innodb_log_file_sise", "1G"}})
	if len(got) != 1 || !strings.Contains(got[0].Error(), "mariadb setting innodb_log_file_sise=1G: /usr/sbin/mariadbd: unknown variable") {
		t.Errorf("MariaDB: %v (a note that echoes a setting blames nothing)", got)
	}

	bLog := `2026-11-23 08:44:12.781 UTC [11193] ERROR unknown parameter: pgbouncer/default_pool_sise`
	got = knobProblems(&KindDef{Kind: "pgbouncer", Backend: "postgres", OwnPrefix: "pgbouncer."}, bLog, []Knob{{"pgbouncer.default_pool_sise", "5"}, {"default_pool_sise", "5"}})
	if len(got) != 1 || got[0].Error() != "pgbouncer setting pgbouncer.default_pool_sise=5: unknown parameter: pgbouncer/default_pool_sise" {
		t.Errorf("PgBouncer: %v", got)
	}

	mLog := `{"t":{"$date":"2026-12-01T19:40:50.736Z"},"s":"I",  "c":"CONTROL",  "id":20697,   "ctx":"-","msg":"Renamed existing log file"}
{"t":{"$date":"2026-12-01T19:40:50.736Z"},"s":"F",  "c":"CONTROL",  "id":20574,   "ctx":"-","msg":"Error during global initialization","attr":{"error":{"code":2,"codeName":"BadValue","errmsg":"Unknown --setParameter 'fooBar'"}}}
Error parsing option "wiredTigerCacheSizeGB" as double in: Did not consume any digits`
	got = knobProblems(&KindDef{Kind: "mongo"}, mLog, []Knob{{"fooBar", "1"}, {"wiredTigerCacheSizeGB", "x"}, {"slowms", "5"}})
	if len(got) != 2 || got[0].Error() != "mongo setting fooBar=1: Error during global initialization: Unknown --setParameter 'fooBar'" ||
		got[1].Error() != `mongo setting wiredTigerCacheSizeGB=x: Error parsing option "wiredTigerCacheSizeGB" as double in: Did not consume any digits` {
		t.Errorf("MongoDB: %v", got)
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
