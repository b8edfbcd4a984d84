package byengine

import (
	"errors"
	"testing"

	"github.com/dbarena/dbarena/engine"
)

func TestRegisterPanics(t *testing.T) {
	for name, register := range map[string]func(r *Registry[int]){
		"twice":     func(r *Registry[int]) { r.Register(engine.KindSQLite, 1); r.Register(engine.KindSQLite, 2) },
		"no engine": func(r *Registry[int]) { r.Register("", 1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			register(&Registry[int]{What: "parts"})
		})
	}
}

func TestMissing(t *testing.T) {
	var r Registry[int]
	r.What = "parts"
	_, err := r.For(engine.KindMongo)
	var me *MissingError
	if !errors.As(err, &me) || me.Kind != engine.KindMongo || err.Error() != "mongodb has no parts" {
		t.Errorf("For(mongodb) = %v, want a MissingError naming mongodb", err)
	}
	if errors.Unwrap(err) != nil {
		t.Errorf("a registry without Err wraps %v", errors.Unwrap(err))
	}
}
