package jobs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/insights"
	"github.com/adsync/adsync/sync/posts"
	"github.com/adsync/adsync/sync/stats"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// duckType is what DuckDB reports for each declared kind.
var duckType = map[export.Kind]string{
	export.String: "VARCHAR", export.Int64: "BIGINT", export.Float64: "DOUBLE", export.Bool: "BOOLEAN",
	export.Timestamp: "TIMESTAMP WITH TIME ZONE", export.Date: "DATE", export.JSON: "JSON",
	export.StringList: "VARCHAR[]", export.Int64List: "BIGINT[]", export.Micros: "DECIMAL(18,6)",
}

// unfilledReport says whether name is one of the report relations this test's analytics (CAMPAIGN,
// unsegmented) leave empty: sync/report's tests fill every level and
// segment.
func unfilledReport(name string) bool {
	filled := []string{"report_account_daily", "report_funding_instrument_daily", "report_campaign_daily"}
	return strings.HasPrefix(name, "report_") && !slices.Contains(filled, name)
}

// TestEveryTableExportsWithDeclaredTypesAndPostgresCounts fills every table
// through its own pipeline (sync, posts, insights, an audience upload,
// analytics), then exports everything and reads it back with DuckDB.
func TestEveryTableExportsWithDeclaredTypesAndPostgresCounts(t *testing.T) {
	t.Parallel()
	// A location list of 2,000 entries, not the service's 50,000: exported
	// in one row group either way, its size taught this test nothing.
	b := setupSync(t, func(o *fixtures.Options) { o.Accounts, o.CampaignsPerAccount, o.Locations = 2, 12, 2000 }, nil)
	ctx := context.Background()
	r := b.run(t, jobs.SyncRunArgs{Full: true})
	require.Equal(t, "succeeded", r.Outcome)

	client := b.fake.Client(t, b.pool)
	ids, err := posts.AdsPostIDs(ctx, b.pool)
	require.NoError(t, err)
	require.NotEmpty(t, ids)
	v2 := b.fake.Srv.V2Truth()
	ids = append(append(ids, v2.PostIDs[:30]...), v2.MissingIDs[0]) // the fake's own posts carry media
	_, err = (&posts.Fetcher{Client: client, Pool: b.pool}).Fetch(ctx, ids)
	require.NoError(t, err)
	_, err = (&insights.Runner{Client: client, Pool: b.pool}).RunLookback(ctx, []insights.KeywordSet{
		{Name: "shoes", Keywords: []string{"running shoes", "trail shoes"}, NegativeKeywords: []string{"used"}, Granularity: "DAY"},
	}, 10*24*time.Hour)
	require.NoError(t, err)

	var acct string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT min(id) FROM accounts WHERE NOT deleted`).Scan(&acct))
	aud, err := audience.CreateAudience(ctx, client, acct, "export test audience")
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "crm.csv")
	require.NoError(t, os.WriteFile(file, fixtures.SampleCRM, 0o600))
	norm, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	var upload int64
	var seqs []int
	_, err = audience.Plan(ctx, b.pool, audience.PlanOptions{AccountID: acct, AudienceID: aud, Path: file,
		Operation: "update", Mode: "add", Normalizer: norm, Workers: 1, MaxUsers: 1000,
		Enqueue: func(_ context.Context, _ pgx.Tx, id int64, s []int) error { upload, seqs = id, s; return nil }})
	require.NoError(t, err)
	sender := &audience.Sender{Pool: b.pool, API: client}
	for _, seq := range seqs {
		require.NoError(t, sender.Send(ctx, upload, seq))
	}

	_, err = (&stats.Runner{Client: client, Pool: b.pool}).Run(ctx, stats.Request{Entities: []string{stats.EntityCampaign}})
	require.NoError(t, err)

	out := t.TempDir()
	res, err := export.Run(ctx, b.pool, export.Options{Out: out})
	require.NoError(t, err)
	require.Len(t, res.Tables, len(export.Tables()), "every registered table is exported")
	byTable := map[string]export.Table{}
	for _, tb := range export.Tables() {
		byTable[tb.Name] = tb
	}
	var files []string
	for _, tr := range res.Tables {
		for _, f := range tr.Files {
			files = append(files, filepath.Join(out, f.Path))
		}
	}
	d := exporttest.Duck(t, files, nil)
	rows := map[string]int64{}
	for _, f := range d.Files {
		rel, _ := filepath.Rel(out, f.File)
		name := filepath.Dir(filepath.Dir(rel))
		rows[name] += f.Rows
		want := map[string]string{export.RunColumn: "BIGINT"}
		for _, c := range byTable[name].Columns {
			want[c.Name] = duckType[c.Kind]
		}
		require.Equal(t, want, f.Types(), "column types of %s", name)
	}
	for _, tr := range res.Tables {
		var n int64
		require.NoError(t, b.pool.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM %s", byTable[tr.Name].From)).Scan(&n))
		require.Equal(t, n, rows[tr.Name], "DuckDB reads as many %s rows as Postgres holds", tr.Name)
		require.Equal(t, n, tr.Rows)
		if tr.Name != "sync_runs" && tr.Name != "test_items" && !unfilledReport(tr.Name) {
			require.Positive(t, n, "a pipeline filled %s", tr.Name)
		}
		if tr.Name == "audience_batches" {
			for _, c := range byTable[tr.Name].Columns {
				require.NotEqual(t, "body", c.Name, "no hashes of people in exports")
			}
		}
	}
}
