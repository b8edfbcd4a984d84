package engine_test

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
)

func TestMakeIdentity(t *testing.T) {
	got := engine.MakeIdentity("dbarena-id:00ff", engine.IdentityField{Name: "created", Value: "1795422569"},
		engine.IdentityField{Name: "none", Value: ""}, engine.IdentityField{Name: "odd", Value: "a b"})
	if want := "dbarena-id:00ff created=1795422569 odd=a_b"; got != want {
		t.Errorf("MakeIdentity = %q, want %q", got, want)
	}
	if got := engine.MakeIdentity("", engine.IdentityField{Value: "16384"}); got != "16384" {
		t.Errorf("MakeIdentity of an object id = %q, want it bare", got)
	}
	if v := engine.IdentityValue("dbarena-id:00ff created=17 table_id=9", "table_id"); v != "9" {
		t.Errorf("IdentityValue = %q", v)
	}
}

// A copy carries the marker but not what the catalogue keeps of the table
// itself; a record of only the marker (an older dbarena's) cannot tell the
// two apart.
func TestCompareIdentity(t *testing.T) {
	const (
		ours = "dbarena-id:00ff created=100 table_id=7"
		copy = "dbarena-id:00ff created=105 table_id=9"
	)
	for _, tc := range []struct {
		name, recorded, now string
		loading             bool
		want                string // "same", "other" or "unconfirmed"
	}{
		{"the same table", ours, ours, false, "same"},
		{"a copy", ours, copy, false, "other"},
		{"a copy made the same second", ours, "dbarena-id:00ff created=100 table_id=9", false, "other"},
		{"another marker", ours, "dbarena-id:0a0a created=100 table_id=7", false, "other"},
		{"no marker now", ours, "created=100 table_id=7", false, "other"},
		{"gone", ours, "", false, "other"},
		{"table id unreadable now", ours, "dbarena-id:00ff created=100", false, "same"},
		{"table id unreadable now, a copy", ours, "dbarena-id:00ff created=105", false, "other"},
		{"nothing in common", "dbarena-id:00ff table_id=7", "dbarena-id:00ff created=100", false, "unconfirmed"},
		{"an older record: the marker only", "dbarena-id:00ff", ours, false, "unconfirmed"},
		{"an older record, another marker", "dbarena-id:00ff", "dbarena-id:0a0a created=1", false, "other"},
		{"loading: renewed fields", ours, "dbarena-id:00ff created=101 table_id=7", true, "same"},
		{"loading: another marker", ours, "dbarena-id:0a0a created=100 table_id=7", true, "other"},
		{"an object id", "16384", "16384", false, "same"},
		{"another object id", "16384", "16390", false, "other"},
		{"loading: another object id", "16384", "16390", true, "other"},
	} {
		v := engine.CompareIdentity(tc.recorded, tc.now, tc.loading)
		got := "same"
		switch {
		case v.Other != "" && v.Unconfirmed != "":
			t.Errorf("%s: both other (%s) and unconfirmed (%s)", tc.name, v.Other, v.Unconfirmed)
		case v.Other != "":
			got = "other"
		case v.Unconfirmed != "":
			got = "unconfirmed"
		}
		if got != tc.want {
			t.Errorf("%s: CompareIdentity(%q, %q, %v) = %+v, want %s", tc.name, tc.recorded, tc.now, tc.loading, v, tc.want)
		}
		if got == "other" && !strings.Contains(v.Other, tc.recorded) {
			t.Errorf("%s: %q does not name the recorded identity", tc.name, v.Other)
		}
	}
}
