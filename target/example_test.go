package target_test

import (
	"fmt"

	"github.com/dbarena/dbarena/target"
)

// One redaction policy: a URL to show, and a message scrubbed of a URL's
// secrets.
func ExampleRedactURL() {
	raw := "postgres://bench:hunter2@db1:5432/bench?sslpassword=k3y&sslmode=require"
	fmt.Println(target.RedactURL(raw))
	fmt.Println(target.Scrub("login as bench:hunter2 failed", target.URLSecrets(raw)...))
	// Output:
	// postgres://bench:xxxxx@db1:5432/bench?sslmode=require&sslpassword=xxxxx
	// login as bench:xxxxx failed
}
