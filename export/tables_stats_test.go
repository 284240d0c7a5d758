package export

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStatsRowsReadBackOncePerBucketWithTheNewestPull(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 0)
	ctx := context.Background()
	// A day after the account's zone switch (UTC start known) and one before
	// it (NULL start), as a pull stores them.
	_, err := pool.Exec(ctx, `INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity,
        bucket_date, bucket_start, impressions, conversion_purchases_sale_amount, fetched_at)
    VALUES ('a1', 'CAMPAIGN', 'c1', 'ALL_ON_SVC', 'DAY', '2026-03-02', '2026-03-01T23:00:00Z', 100, 5000000, now()),
           ('a1', 'CAMPAIGN', 'c1', 'ALL_ON_SVC', 'DAY', '2026-02-01', NULL, 70, NULL, now())`)
	require.NoError(t, err)
	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"ad_stats"}})
	require.NoError(t, err)
	// A re-pull replaces both buckets (the newer one changed after the fact).
	_, err = pool.Exec(ctx, `UPDATE ad_stats SET impressions = impressions + 1, fetched_at = now()`)
	require.NoError(t, err)
	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"ad_stats"}})
	require.NoError(t, err)

	var tb Table
	for _, x := range Tables() {
		if x.Name == "ad_stats" {
			tb = x
		}
	}
	require.Equal(t, "ad_stats", tb.Name)
	d := duck(t, nil, map[string]string{
		"all":    "SELECT count(*)::BIGINT AS n FROM read_parquet('" + out + "/ad_stats/*/*.parquet')",
		"latest": "SELECT count(*)::BIGINT AS n, sum(impressions)::BIGINT AS impressions, sum(conversion_purchases_sale_amount)::BIGINT AS sales, count(bucket_start)::BIGINT AS starts FROM (" + tb.LatestQuery(out) + ")",
	})
	require.EqualValues(t, 4, toFloat(d.Queries["all"][0]["n"]), "both pulls are in the folder")
	latest := d.Queries["latest"][0]
	require.EqualValues(t, 2, toFloat(latest["n"]), "each bucket once")
	require.EqualValues(t, 172, toFloat(latest["impressions"]), "the newest pull's values")
	require.EqualValues(t, 5000000, toFloat(latest["sales"]), "conversion members are typed columns")
	require.EqualValues(t, 1, toFloat(latest["starts"]), "an unknown UTC start stays null")
}
