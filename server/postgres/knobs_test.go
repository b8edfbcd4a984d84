package postgres

import "testing"

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

func TestServerPgConf(t *testing.T) {
	for in, want := range map[string]string{"1GB": "'1GB'", "it's": "'it''s'", `C:\x`: `'C:\\x'`, `"$user", public`: `'"$user", public'`} {
		if got := pgConf(in); got != want {
			t.Errorf("pgConf(%q) = %s, want %s", in, got, want)
		}
	}
}
