package engine_test

import (
	"testing"

	"github.com/dbarena/dbarena/engine"
)

func TestSettingRoles(t *testing.T) {
	r := engine.SettingRoles{
		Common: map[string][]string{
			engine.SettingWALSize: {"innodb_redo_log_capacity", "innodb_log_file_size"},
		},
		Incidental: []string{"port", "shared_memory_size*"},
	}
	for name, want := range map[string]bool{
		"port": true, "shared_memory_size": true, "shared_memory_size_in_huge_pages": true,
		"portal": false, "shared_buffers": false,
	} {
		if got := r.IsIncidental(name); got != want {
			t.Errorf("IsIncidental(%q) = %v, want %v", name, got, want)
		}
	}
	if c := r.CommonName("innodb_log_file_size"); c != engine.SettingWALSize {
		t.Errorf("CommonName(innodb_log_file_size) = %q", c)
	}
	if c := r.CommonName("port"); c != "" {
		t.Errorf("CommonName(port) = %q", c)
	}
	// The first setting of the list that the server reports is the one.
	both := map[string]string{"innodb_redo_log_capacity": "104857600", "innodb_log_file_size": "50331648"}
	if s, v, ok := r.Setting(engine.SettingWALSize, both); !ok || s != "innodb_redo_log_capacity" || v != "104857600" {
		t.Errorf("Setting(both) = %q %q %v", s, v, ok)
	}
	if s, _, ok := r.Setting(engine.SettingWALSize, map[string]string{"innodb_log_file_size": "1"}); !ok || s != "innodb_log_file_size" {
		t.Errorf("Setting(older) = %q %v", s, ok)
	}
	if _, _, ok := r.Setting(engine.SettingBufferPool, both); ok {
		t.Error("Setting of a common name the engine does not have")
	}
}
