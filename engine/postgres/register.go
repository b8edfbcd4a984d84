package postgres

import "github.com/dbarena/dbarena/engine"

// init registers the engine: everything shared code knows about it.
func init() {
	engine.Register(engine.Registration{
		Name:        "postgres",
		Aliases:     []string{"postgresql"},
		Family:      engine.FamilySQL,
		Dialect:     Dialect{},
		PasswordEnv: "PGPASSWORD",
		Open:        Open,
		ServerStats: serverStats,
		Settings:    settingRoles,
	})
}
