package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// checkDatabase connects and lists pending migrations. The pool is nil
// unless the database is reachable and migrated: the other checks use it
// only then.
func (d doctor) checkDatabase(ctx context.Context) (*pgxpool.Pool, check) {
	c := check{name: "database"}
	dbURL, err := d.Database(ctx)
	switch {
	case err != nil:
		c.status, c.found = statusFail, err.Error()
		c.todo = "set " + d.from("database_url") + " to a database you run"
		return nil, c
	case dbURL == "":
		c.status, c.found = statusFail, "no database configured"
		c.todo = "set --database-url or ADSYNC_DATABASE_URL (or database_url in the file)"
		return nil, c
	}
	pool, err := store.Connect(ctx, dbURL, store.ConnectOptions{MaxConns: 4, Timeout: timeout})
	if err != nil {
		c.status, c.found = statusFail, err.Error()
		c.todo = "start Postgres or correct " + d.from("database_url")
		return nil, c
	}
	d.OnClose(pool.Close)
	where := store.DatabaseName(pool)
	vs, err := migrations.Status(ctx, pool, nil)
	if err != nil {
		c.status, c.found = statusFail, where+" is reachable; reading its migrations failed: "+err.Error()
		c.todo = "check that the user may read the database (adsync migrate creates what is missing)"
		return nil, c
	}
	if pending := migrations.PendingNames(vs); len(pending) > 0 {
		c.status = statusFail
		c.found = fmt.Sprintf("%s is reachable; %d pending migrations: %s", where, len(pending), strings.Join(pending, ", "))
		c.todo = "run adsync migrate"
		return nil, c
	}
	c.status, c.found = statusOK, fmt.Sprintf("%s is reachable and migrated (%d migrations applied)", where, len(vs))
	return pool, c
}
