package sqlite

import "github.com/dbarena/dbarena/engine"

// settingRoles are SQLite's settings of a common name (its page cache,
// PRAGMA cache_size: pages, or KiB when negative; the WAL's checkpoint
// threshold, PRAGMA wal_autocheckpoint: pages) and the file's path,
// which says where the database is.
var settingRoles = engine.SettingRoles{
	Common: map[string][]string{
		engine.SettingBufferPool: {"cache_size"},
		engine.SettingWALSize:    {"wal_autocheckpoint"},
	},
	Incidental: []string{"path"},
}
