package mongo_test

import (
	"fmt"

	mongoengine "github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/payments/mongo"
)

// The implementation for MongoDB is what workload.ForFamily returns for a
// MongoDB target, bound to the registered workload: it shares its
// options.
func Example() {
	m, _ := workload.Lookup("payments")
	w := m.New()
	impl, err := workload.ForFamily(w, mongoengine.Dialect{})
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := impl.Define()
	fmt.Println(spec.Options == w.Define().Options, spec.Meta.Name)
	// Output:
	// true payments
}
