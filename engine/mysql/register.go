package mysql

import "github.com/dbarena/dbarena/engine"

// init registers the engine: everything shared code knows about it.
func init() {
	engine.Register(engine.Registration{
		Name:        "mysql",
		Aliases:     []string{"mariadb"},
		Family:      engine.FamilySQL,
		Dialect:     Dialect{},
		PasswordEnv: "MYSQL_PWD",
		Open:        Open,
		ServerStats: serverStats,
		Settings:    settingRoles,
	})
}
