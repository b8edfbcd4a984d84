package mongo_test

import (
	"fmt"

	mongoengine "github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/oltp/mongo"
)

// The implementation for MongoDB is what workload.ForFamily returns for a
// MongoDB target: not the registered workload, but bound to it and its
// options.
func Example() {
	m, _ := workload.Lookup("oltp_read_write")
	w := m.New()
	impl, err := workload.ForFamily(w, mongoengine.Dialect{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := impl.Define()
	fmt.Println(impl != w, s.Options == w.Define().Options, s.Meta.Name)
	// Output:
	// true true oltp_read_write
}
