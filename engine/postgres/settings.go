package postgres

import "github.com/dbarena/dbarena/engine"

// settingRoles are PostgreSQL's settings of a common name and those that
// say where a server is (paths, ports, the message language) or follow
// from others (shared_memory_size from shared_buffers and friends), and
// those of a PgBouncer in front of it worth comparing with none.
var settingRoles = engine.SettingRoles{
	Common: map[string][]string{
		engine.SettingBufferPool:  {"shared_buffers"},
		engine.SettingWALSize:     {"max_wal_size"},
		engine.SettingConnections: {"max_connections"},
	},
	Incidental: []string{
		"config_file", "data_directory", "hba_file", "ident_file", "external_pid_file",
		"port", "listen_addresses", "unix_socket_directories", "unix_socket_group",
		"log_directory", "log_filename", "ssl_cert_file", "ssl_key_file", "ssl_ca_file", "ssl_crl_file", "ssl_crl_dir",
		"krb_server_keyfile", "cluster_name", "data_directory_mode",
		"shared_memory_size*", "server_version", "server_version_num",
		"lc_messages",
		"pgbouncer.listen_port", "pgbouncer.listen_addr", "pgbouncer.unix_socket_dir", "pgbouncer.logfile",
		"pgbouncer.pidfile", "pgbouncer.auth_file", "pgbouncer.conffile",
	},
	// PgBouncer's own settings (ServerInfo behind a PgBouncer).
	Telling: []string{"pgbouncer.version", "pgbouncer.pool_mode", "pgbouncer.default_pool_size", "pgbouncer.max_client_conn"},
}
