// Package all registers every database engine dbarena ships with. A binary
// imports it for its side effects:
//
//	import _ "github.com/dbarena/dbarena/engine/all"
package all

import (
	_ "github.com/dbarena/dbarena/engine/mongo"    // "mongodb" (and "mongodb+srv")
	_ "github.com/dbarena/dbarena/engine/mysql"    // "mysql" (and "mariadb")
	_ "github.com/dbarena/dbarena/engine/postgres" // "postgres" (and "postgresql")
	_ "github.com/dbarena/dbarena/engine/sqlite"   // "sqlite"
)
