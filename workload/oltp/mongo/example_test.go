package mongo_test

import (
	"fmt"

	mongoengine "github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/oltp/mongo"
)

// The implementation for MongoDB is what workload.ForFamily returns for a
// MongoDB target, bound to the registered workload and its options.
func Example() {
	m, _ := workload.Lookup("oltp_read_write")
	w := m.New()
	impl, err := workload.ForFamily(w, mongoengine.Dialect{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(impl.(*mongo.Test).Base() == w, impl.Meta().Name)
	// Output:
	// true oltp_read_write
}
