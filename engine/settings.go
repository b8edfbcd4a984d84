package engine

import "strings"

// Common names of settings that every engine has under a name of its own.
// A comparison of result files shows each engine's setting in one row
// under the common name.
const (
	// SettingBufferPool is the server's page cache (PostgreSQL's
	// shared_buffers, InnoDB's buffer pool, WiredTiger's cache).
	SettingBufferPool = "buffer pool"
	// SettingWALSize is how much write-ahead log is kept before a
	// checkpoint is forced (max_wal_size, InnoDB's redo log capacity).
	SettingWALSize = "WAL size"
	// SettingConnections is the most client connections the server
	// accepts.
	SettingConnections = "connections"
)

// SettingRoles tells readers of result files what an engine's settings
// (engine.ServerInfo.Settings) are. The zero value says nothing: every
// setting is compared by its own name.
type SettingRoles struct {
	// Common maps a common name (SettingBufferPool …) to the engine's
	// settings that mean it, in order of preference: the first one a
	// server reports is the one shown (versions rename settings:
	// innodb_redo_log_capacity replaced innodb_log_file_size).
	Common map[string][]string
	// Incidental are settings that say where a server is or follow from
	// others (paths, ports, sizes derived from other settings, the
	// language of messages): they tell nothing about a benchmark's
	// outcome and are left out of comparisons. A name ending in "*"
	// matches every setting it begins.
	Incidental []string
	// Telling are settings compared even where only some of the files
	// report them (a pooler's pool mode, beside a column without a
	// pooler): a file without one shows "—".
	Telling []string
}

// IsIncidental tells whether setting is one of r.Incidental.
func (r SettingRoles) IsIncidental(setting string) bool {
	for _, p := range r.Incidental {
		if p == setting || (strings.HasSuffix(p, "*") && strings.HasPrefix(setting, p[:len(p)-1])) {
			return true
		}
	}
	return false
}

// CommonName is the common name of setting, or "" when it has none.
func (r SettingRoles) CommonName(setting string) string {
	for name, list := range r.Common {
		for _, s := range list {
			if s == setting {
				return name
			}
		}
	}
	return ""
}

// Setting returns the setting of settings that has the common name, and
// its value: the first of r.Common[name] that settings holds.
func (r SettingRoles) Setting(name string, settings map[string]string) (setting, value string, ok bool) {
	for _, s := range r.Common[name] {
		if v, found := settings[s]; found {
			return s, v, true
		}
	}
	return "", "", false
}

// CommonSettings lists the common names in the order comparisons show
// them.
func CommonSettings() []string {
	return []string{SettingBufferPool, SettingWALSize, SettingConnections}
}
