package mongo

import "github.com/dbarena/dbarena/engine"

// settingRoles are MongoDB's settings of a common name (ServerInfo's
// keys: "status." from serverStatus, "cmdline." from the command line)
// and those that say where a server is (paths, ports, host, process).
var settingRoles = engine.SettingRoles{
	Common: map[string][]string{
		engine.SettingBufferPool:  {"status.wiredTiger.cache.maximum bytes configured"},
		engine.SettingConnections: {"cmdline.net.maxIncomingConnections"},
	},
	Incidental: []string{
		"status.host", "status.process", "status.repl.hosts",
		"cmdline.storage.dbPath", "cmdline.net.port", "cmdline.net.bindIp", "cmdline.net.bindIpAll",
		"cmdline.systemLog.path", "cmdline.processManagement.pidFilePath", "cmdline.config",
		"cmdline.security.keyFile",
	},
}
