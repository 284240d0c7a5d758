package jobs_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/export/exporttest/icebirdtables"
	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

// TestIcebergExportOfASyncedFakeReadsInIcebirdAsPostgresThroughChanges
// syncs a small fake and pulls its analytics, exports every table as
// Iceberg and reads each back with icebird: row for row what Postgres
// holds. After campaigns and line items are added, changed and deleted in
// the service, an incremental sync and an incremental export, icebird reads
// the new state, and the campaigns' previous metadata file still reads the
// rows of the first export.
func TestIcebergExportOfASyncedFakeReadsInIcebirdAsPostgresThroughChanges(t *testing.T) {
	t.Parallel()
	now, err := fixtures.SuiteNow()
	require.NoError(t, err)
	b := setupSync(t, func(o *fixtures.Options) {
		o.Accounts, o.Locations = 2, 2000
		o.Now = fixtures.RunningFrom(now)
		o.TimestampWindow = max(o.TimestampWindow, time.Since(now).Abs()+time.Hour)
	}, nil)
	r := b.run(t, jobs.SyncRunArgs{Full: true})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	start := now.UTC().AddDate(0, 0, -2).Format(time.DateOnly)
	jobstest.RunJob(t, b.client, jobs.StatsArgs{Entities: []string{stats.EntityCampaign, stats.EntityLineItem}, Start: start})

	tables := icebirdtables.Of(export.Tables()...)
	out := t.TempDir()
	first := exportIceberg(t, b, out)
	require.Len(t, first.Tables, len(tables), "every exported table")
	got := exporttest.RequireIcebergEqualsPostgres(t, b.pool, tables, nil, first.RunID)
	for _, name := range []string{"campaigns", "line_items", "ad_stats"} {
		require.NotEmpty(t, got[name], "the fake's %s are exported", name)
	}
	campaigns := tables[slices.IndexFunc(tables, func(tb exporttest.IcebergTable) bool { return tb.Name == "campaigns" })]
	before := exporttest.PostgresRows(t, b.pool, campaigns)
	oldMeta := exporttest.CurrentMetadata(t, b.pool, "campaigns")

	for _, m := range []fixtures.AdsMutation{{Kind: "campaigns", Add: 3, Change: 5, Delete: 2}, {Kind: "line_items", Add: 2, Change: 4, Delete: 1}} {
		_, err := b.fake.Srv.AdsMutate(m)
		require.NoError(t, err, m.Kind)
	}
	r = b.run(t, jobs.SyncRunArgs{})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	second := exportIceberg(t, b, out)
	require.False(t, second.Full, "the second export is incremental")
	exporttest.RequireIcebergEqualsPostgres(t, b.pool, tables, nil, second.RunID)
	require.NotEqual(t, exporttest.SortedRows(before), exporttest.SortedRows(exporttest.PostgresRows(t, b.pool, campaigns)))
	require.NotEqual(t, oldMeta, exporttest.CurrentMetadata(t, b.pool, "campaigns"), "the changes are a new snapshot")

	old := exporttest.ReadIceberg(t, b.pool, []exporttest.IcebergTable{campaigns}, map[string]string{"campaigns": oldMeta}, nil)
	for _, row := range old["campaigns"] {
		require.Equal(t, strconv.FormatInt(first.RunID, 10), *row[0], "the previous metadata holds the first export's rows")
	}
	require.Equal(t, exporttest.SortedRows(before), exporttest.SortedRows(exporttest.WithoutRun(old["campaigns"])),
		"the previous metadata file reads the campaigns as the first export wrote them")
}

// exportIceberg exports every table into out as Iceberg, incrementally
// after the first time.
func exportIceberg(t *testing.T, b *syncBundle, out string) *export.Result {
	t.Helper()
	start := time.Now()
	res, err := export.Run(context.Background(), b.pool, export.Options{Out: out, Format: export.FormatIceberg})
	require.NoError(t, err)
	t.Logf("iceberg export: %d tables in %s", len(res.Tables), time.Since(start))
	return res
}
