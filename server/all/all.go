// Package all imports every managed-server kind (server/postgres:
// PostgreSQL and PgBouncer; server/mariadb: MariaDB; server/mongo:
// MongoDB), so that a binary
// that imports it can start them all, as engine/all makes it open every
// engine.
package all

import (
	_ "github.com/dbarena/dbarena/server/mariadb"
	_ "github.com/dbarena/dbarena/server/mongo"
	_ "github.com/dbarena/dbarena/server/postgres"
)
