package mongo

import "github.com/dbarena/dbarena/engine"

// init registers the engine: everything shared code knows about it.
func init() {
	engine.Register(engine.Registration{
		Name:        "mongodb",
		Schemes:     []string{"mongodb+srv"},
		Family:      engine.FamilyMongo,
		Dialect:     Dialect{},
		Open:        Open,
		Settings:    settingRoles,
		ServerStats: serverStats,
	})
}
