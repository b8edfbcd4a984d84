package sqlite

import "github.com/dbarena/dbarena/engine"

// init registers the engine: everything shared code knows about it.
func init() {
	engine.Register(engine.Registration{
		Name:     "sqlite",
		Family:   engine.FamilySQL,
		Dialect:  Dialect{},
		Open:     Open,
		Settings: settingRoles,
	})
}
