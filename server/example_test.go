package server_test

import (
	"context"
	"fmt"
	"log"

	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/postgres"
)

// A managed target names a kind and its knobs, or a started server.
func ExampleParseManaged() {
	spec, err := server.ParseManaged("managed:postgres?shared_buffers=1GB&max_wal_size=4GB")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(spec.Kind, spec.Knobs)
	spec, _ = server.ParseManaged("managed:pg1")
	fmt.Printf("%q %q\n", spec.Kind, spec.Name)
	// Output:
	// postgres [shared_buffers=1GB max_wal_size=4GB]
	// "" "pg1"
}

// Start a throw-away PostgreSQL with two knobs, use its target, stop it.
func ExampleStart() {
	ctx := context.Background()
	srv, err := server.Start(ctx, server.Spec{
		Kind:  postgres.ServerKind,
		Knobs: []server.Knob{{Name: "shared_buffers", Value: "1GB"}, {Name: "max_wal_size", Value: "4GB"}},
		Home:  "/var/lib/dbarena",
	})
	if err != nil {
		log.Fatal(err) // names a knob the server refused, with its log
	}
	defer srv.Stop(ctx)
	fmt.Println(srv.Target(), srv.Settings()["shared_buffers"])
}
