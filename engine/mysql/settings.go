package mysql

import "github.com/dbarena/dbarena/engine"

// settingRoles are MySQL's and MariaDB's settings of a common name and
// those that say where a server is (paths, ports, host name, server id,
// the message language) or what it is (its version, already recorded).
var settingRoles = engine.SettingRoles{
	Common: map[string][]string{
		engine.SettingBufferPool:  {"innodb_buffer_pool_size"},
		engine.SettingWALSize:     {"innodb_redo_log_capacity", "innodb_log_file_size"},
		engine.SettingConnections: {"max_connections"},
	},
	Incidental: []string{
		"basedir", "datadir", "tmpdir", "plugin_dir", "character_sets_dir", "lc_messages_dir",
		"socket", "port", "report_port", "bind_address", "hostname", "report_host", "server_id", "server_uuid",
		"pid_file", "log_error", "general_log_file", "slow_query_log_file", "log_bin_basename", "log_bin_index",
		"relay_log_basename", "relay_log_index", "innodb_data_home_dir", "innodb_log_group_home_dir",
		"innodb_undo_directory", "innodb_tmpdir", "secure_file_priv",
		"version", "version_comment", "version_compile_*", "version_source_revision", "version_ssl_library", "version_malloc_library",
		"lc_messages",
	},
}
