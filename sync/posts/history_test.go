package posts_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/posts"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the generated part of the migration")

const historyMarker = "-- v2 histories (generated).\n"

func TestHistoryMigrationHoldsTheDeclaredHistories(t *testing.T) {
	files, err := filepath.Glob(fmt.Sprintf("../../migrations/sql/%04d_*.sql", posts.HistoryMigration))
	require.NoError(t, err)
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	head, _, ok := strings.Cut(string(b), historyMarker)
	require.True(t, ok, "the migration lost its marker line")
	want := head + historyMarker + posts.HistorySchemaSQL()
	if *update {
		require.NoError(t, os.WriteFile(files[0], []byte(want), 0o644))
		return
	}
	require.Equal(t, want, string(b), "run go test ./sync/posts -run TestHistoryMigration -update")
}

func TestHistoriesKeepEveryColumnOfTheirTables(t *testing.T) {
	t.Parallel()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	for _, h := range posts.Histories() {
		rows, err := pool.Query(context.Background(), `SELECT column_name || CASE WHEN is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END
FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name <> 'valid_from'
ORDER BY ordinal_position`, h.Table)
		require.NoError(t, err)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		var want []string
		for _, c := range h.Columns {
			s := c.Name
			if strings.HasSuffix(c.Type, "NOT NULL") {
				s += " NOT NULL"
			}
			want = append(want, s)
		}
		require.Equal(t, want, got, "%s's history keeps its columns", h.Table)
	}
}

func TestAChangedPostIsANewVersionAndAnUnchangedOneIsNot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	store1 := func(body string, at time.Time) {
		t.Helper()
		var resp posts.Response
		require.NoError(t, json.Unmarshal([]byte(body), &resp))
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := posts.StoreResponse(ctx, tx, []string{"11"}, resp, at)
			return err
		}))
	}
	const v1 = `{"data":[{"id":"11","text":"hi","public_metrics":{"like_count":3}}],"includes":{"users":[{"id":"7","name":"N"}]}}`
	const v2 = `{"data":[{"id":"11","text":"hi","public_metrics":{"like_count":4}}],"includes":{"users":[{"id":"7","name":"N"}]}}`
	day := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	store1(v1, day)
	store1(v1, day.Add(time.Hour))
	store1(v2, day.Add(2*time.Hour))
	store1(v2, day.Add(3*time.Hour))

	rows, err := pool.Query(ctx, `SELECT valid_from, valid_to, (raw->'public_metrics'->>'like_count')::int FROM v2_posts_history
WHERE id = '11' ORDER BY valid_from`)
	require.NoError(t, err)
	type version struct {
		From  time.Time
		To    *time.Time
		Likes int
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[version])
	require.NoError(t, err)
	changed := day.Add(2 * time.Hour)
	require.Len(t, got, 2, "one version per content")
	require.True(t, day.Equal(got[0].From), "the first version begins when adsync first saw the post")
	require.True(t, changed.Equal(*got[0].To), "it ends when adsync stored the change")
	require.True(t, changed.Equal(got[1].From))
	require.Nil(t, got[1].To)
	require.Equal(t, []int{3, 4}, []int{got[0].Likes, got[1].Likes})
	var users int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM v2_users_history`).Scan(&users))
	require.Equal(t, 1, users, "the unchanged user has one version")
	for _, h := range posts.Histories() {
		require.NoError(t, store.CheckHistory(ctx, pool, h))
	}
}

func TestUpgradeGivesEveryStoredPostItsFirstVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, localpg.NewDatabase(t))
	all, err := migrations.AppMigrations()
	require.NoError(t, err)
	apply := func(keep func(v int) bool) {
		t.Helper()
		for _, m := range all {
			if keep(m.Version) {
				_, err := pool.Exec(ctx, m.SQL)
				require.NoError(t, err, "migration %d", m.Version)
			}
		}
	}
	apply(func(v int) bool { return v < posts.HistoryMigration })
	_, err = pool.Exec(ctx, `INSERT INTO v2_posts (id, text, raw, doc_hash, first_seen_at, fetched_at, updated_at)
VALUES ('1', 'a', '{}', 'h1', '2026-01-02T03:04:05.678901Z', now(), '2026-01-03T00:00:00Z'), ('2', 'b', '{}', 'h2', '2026-01-04T00:00:00Z', now(), now())`)
	require.NoError(t, err)
	apply(func(v int) bool { return v == posts.HistoryMigration })

	rows, err := pool.Query(ctx, `SELECT id || ' ' || to_char(valid_from AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') || ' ' || (valid_to IS NULL)
FROM v2_posts_history ORDER BY id`)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"1 2026-01-02 03:04:05.678 true", "2 2026-01-04 00:00:00.000 true"}, got,
		"one current version per stored post, from when adsync first saw it")
}
