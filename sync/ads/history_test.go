package ads

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

const historyMigrationFile = "../../migrations/sql/0031_entity_history.sql"

const historyMarker = "-- Entity histories (generated).\n"

func TestHistoryMigrationHoldsTheRegistrysHistories(t *testing.T) {
	b, err := os.ReadFile(historyMigrationFile)
	require.NoError(t, err)
	head, _, ok := strings.Cut(string(b), historyMarker)
	require.True(t, ok, "the migration lost its marker line")
	want := head + historyMarker + HistorySchemaSQL()
	if *update {
		require.NoError(t, os.WriteFile(historyMigrationFile, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, string(b), "run go test ./sync/ads -run TestHistoryMigration -update")
	require.True(t, strings.HasPrefix(filepath.Base(historyMigrationFile), fmt.Sprintf("%04d_", HistoryMigration)))
	for _, e := range registry {
		if e.Migration < HistoryMigration {
			require.Contains(t, string(b), "CREATE VIEW "+e.History()+" AS", "every entity table has its history")
			continue
		}
		// A later entity's table has its history in its own migration.
		files, err := filepath.Glob(fmt.Sprintf("../../migrations/sql/%04d_*.sql", e.Migration))
		require.NoError(t, err)
		require.Len(t, files, 1, "migration %d of %s", e.Migration, e.Name)
		later, err := os.ReadFile(files[0])
		require.NoError(t, err)
		require.Contains(t, string(later), e.CreateTableSQL()+e.HistorySQL(), "%s holds %s's table and its history", files[0], e.Name)
	}
}

// migratedTo is a database holding the app's migrations before version
// (River's are not needed by the entity tables).
func migratedTo(t *testing.T, version int) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool, err := store.Connect(ctx, localpg.NewDatabase(t), store.ConnectOptions{MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	all, err := migrations.AppMigrations()
	require.NoError(t, err)
	for _, m := range all {
		if m.Version < version {
			_, err := pool.Exec(ctx, m.SQL)
			require.NoError(t, err, "migration %d", m.Version)
		}
	}
	return pool
}

// applyMigration runs the app migration of version.
func applyMigration(t *testing.T, pool *pgxpool.Pool, version int) {
	t.Helper()
	all, err := migrations.AppMigrations()
	require.NoError(t, err)
	for _, m := range all {
		if m.Version == version {
			_, err := pool.Exec(context.Background(), m.SQL)
			require.NoError(t, err)
			return
		}
	}
	t.Fatalf("no migration %d", version)
}

func TestUpgradeGivesEveryExistingRowItsFirstVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := migratedTo(t, HistoryMigration)
	_, err := pool.Exec(ctx, `INSERT INTO campaigns (account_id, id, raw, doc_hash, api_updated_at, deleted, first_seen_at) VALUES
    ('a1', 'c1', '{"name": "one"}', 'h1', '2024-03-01T10:00:00.123456Z', false, '2024-03-05T00:00:00Z'),
    ('a1', 'c2', '{"name": "two"}', 'h2', NULL, false, '2024-03-06T00:00:00Z'),
    ('a2', 'c3', '{"name": "three"}', '', '2024-03-02T00:00:00Z', true, '2024-03-07T00:00:00Z')`)
	require.NoError(t, err)
	applyMigration(t, pool, HistoryMigration)

	rows, err := pool.Query(ctx, `SELECT id, valid_from, valid_to IS NULL, deleted FROM campaigns_history ORDER BY id`)
	require.NoError(t, err)
	type version struct {
		ID      string
		From    time.Time
		Current bool
		Deleted bool
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[version])
	require.NoError(t, err)
	at := func(s string) time.Time { v, err := time.Parse(time.RFC3339Nano, s); require.NoError(t, err); return v }
	require.Equal(t, []version{
		{"c1", at("2024-03-01T10:00:00.123Z"), true, false},
		{"c2", at("2024-03-06T00:00:00Z"), true, false},
		{"c3", at("2024-03-02T00:00:00Z"), true, true},
	}, func() []version {
		for i := range got {
			got[i].From = got[i].From.UTC()
		}
		return got
	}())
	e, _ := Lookup("campaigns")
	require.NoError(t, CheckHistory(ctx, pool, e))

	// The first change after the upgrade closes the first version.
	_, err = pool.Exec(ctx, `UPDATE campaigns SET doc_hash = 'h1b', api_updated_at = '2024-04-01T00:00:00Z' WHERE id = 'c1'`)
	require.NoError(t, err)
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM campaigns_history WHERE id = 'c1'`).Scan(&n))
	require.Equal(t, 2, n)
	require.NoError(t, CheckHistory(ctx, pool, e))
}

func TestALaterColumnChangeReachesThePastVersions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := migratedTo(t, HistoryMigration+1)
	_, err := pool.Exec(ctx, `INSERT INTO campaigns (account_id, id, raw, doc_hash, purchase_order_number) VALUES ('a1', 'c1', '{"name": "one"}', 'h1', 'PO-1');
UPDATE campaigns SET raw = '{"name": "two"}', doc_hash = 'h2'`)
	require.NoError(t, err)

	// A later migration adds a column and drops one (one no report view
	// reads: a migration dropping a column a view reads remakes the view).
	base, _ := Lookup("campaigns")
	later := *base
	later.Columns = slices.Clone(base.Columns)
	for i := range later.Columns {
		if later.Columns[i].Name == "purchase_order_number" {
			later.Columns[i].Dropped = 99
		}
	}
	later.Columns = append(later.Columns, Column{Name: "label", Field: "name", Type: Text, Migration: 99})
	alter := alterSQL([]*Entity{&later}, 99)
	_, err = pool.Exec(ctx, alter)
	require.NoError(t, err, alter)

	_, err = pool.Exec(ctx, `UPDATE campaigns SET raw = '{"name": "three"}', label = 'three', doc_hash = 'h3'`)
	require.NoError(t, err)
	rows, err := pool.Query(ctx, `SELECT label FROM campaigns_history ORDER BY valid_from`)
	require.NoError(t, err)
	labels, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"one", "two", "three"}, labels, "past versions filled from their records, the new one written with it")
	var dropped int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns
WHERE table_name IN ('campaigns_history', 'campaigns_history_closed') AND column_name = 'purchase_order_number'`).Scan(&dropped))
	require.Zero(t, dropped, "the dropped column left the history too")
	require.NoError(t, CheckHistory(ctx, pool, &later))
}

func TestValidFromIsTheServicesUpdatedAtWhenItMovesOnElseTheWriteTimeAndNeverOverlaps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := migratedTo(t, HistoryMigration+1)
	at := func(s string) time.Time { v, err := time.Parse(time.RFC3339Nano, s); require.NoError(t, err); return v }
	_, err := pool.Exec(ctx, `INSERT INTO campaigns (account_id, id, raw, doc_hash, api_updated_at, first_seen_at, last_synced_at)
VALUES ('a1', 'c1', '{}', 'h1', '2024-03-01T10:00:00Z', '2024-03-01T11:00:00Z', '2024-03-01T11:00:00Z')`)
	require.NoError(t, err)
	for _, step := range []struct{ hash, updated, written string }{
		// updated_at did not move: the write time.
		{"h2", "2024-03-01T10:00:00Z", "2024-03-01T12:00:00Z"},
		// updated_at went back, written in the same instant: a millisecond on.
		{"h3", "2024-03-01T09:00:00Z", "2024-03-01T12:00:00Z"},
		// updated_at moved past the last version's start: it.
		{"h4", "2024-03-05T00:00:00.123456Z", "2024-03-01T13:00:00Z"},
		// a tombstone of the sweep, written before the service's updated_at
		// (its clock ahead): a millisecond on.
		{"", "2024-03-05T00:00:00.123456Z", "2024-03-02T00:00:00Z"},
	} {
		_, err := pool.Exec(ctx, `UPDATE campaigns SET doc_hash = $1, api_updated_at = $2, last_synced_at = $3, deleted = $1 = ''`,
			step.hash, step.updated, step.written)
		require.NoError(t, err)
	}
	rows, err := pool.Query(ctx, `SELECT valid_from FROM campaigns_history ORDER BY valid_from`)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	require.NoError(t, err)
	for i := range got {
		got[i] = got[i].UTC()
	}
	require.Equal(t, []time.Time{
		at("2024-03-01T10:00:00Z"), at("2024-03-01T12:00:00Z"), at("2024-03-01T12:00:00.001Z"),
		at("2024-03-05T00:00:00.123Z"), at("2024-03-05T00:00:00.124Z"),
	}, got)
	e, _ := Lookup("campaigns")
	require.NoError(t, CheckHistory(ctx, pool, e))

	// The check finds a gap, and names the record.
	_, err = pool.Exec(ctx, `UPDATE campaigns_history_closed SET valid_to = valid_to - interval '1 second'
WHERE valid_from = '2024-03-01T10:00:00Z'`)
	require.NoError(t, err)
	err = CheckHistory(ctx, pool, e)
	require.ErrorContains(t, err, "campaigns_history: record a1/c1, version from ")
	require.ErrorContains(t, err, "a version ends at")
}
