package adsynccmd

import (
	"context"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// querySource is a table in a database of its own, read by a SQL query on
// source_url. Each change is what a CRM's own sync would run on it: deletes
// of the rows gone, inserts of the new ones, updates of the changed ones.
func querySource(t *testing.T) nightlySource {
	url := localpg.NewDatabase(t)
	pool, err := store.Connect(context.Background(), url, store.ConnectOptions{MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(context.Background(), `CREATE TABLE customers (id text PRIMARY KEY, email text NOT NULL)`)
	require.NoError(t, err)
	return nightlySource{
		yaml: "    source:\n      query: SELECT id AS partner_user_id, email FROM customers\n      source_url: '" + url + "'\n",
		set: func(t *testing.T, users []crmUser) {
			ids, emails := make([]string, len(users)), make([]string, len(users))
			for i, u := range users {
				ids[i], emails[i] = u.id, u.email
			}
			require.NoError(t, pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
				if _, err := tx.Exec(context.Background(), `DELETE FROM customers WHERE id <> ALL($1)`, ids); err != nil {
					return err
				}
				_, err := tx.Exec(context.Background(), `INSERT INTO customers (id, email) SELECT * FROM unnest($1::text[], $2::text[])
					ON CONFLICT (id) DO UPDATE SET email = EXCLUDED.email WHERE customers.email <> EXCLUDED.email`, ids, emails)
				return err
			}))
		},
	}
}

// Needs the sources change (issue 31, part 1), which reads query sources:
// until it is merged, Plan refuses a definition without a file.
func TestWorkerKeepsANightlyAudienceEqualToAPostgresQueryAcrossChanges(t *testing.T) {
	t.Parallel()
	nightlyReplace(t, setupService(t, bundleOptions{ownerToken: true}), querySource(t))
}
