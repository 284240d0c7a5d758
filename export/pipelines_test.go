package export

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/insights"
	"github.com/adsync/adsync/sync/posts"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// duckType is what DuckDB reports for each declared kind.
var duckType = map[Kind]string{
	String: "VARCHAR", Int64: "BIGINT", Float64: "DOUBLE", Bool: "BOOLEAN", Timestamp: "TIMESTAMP WITH TIME ZONE",
	Date: "DATE", JSON: "JSON", StringList: "VARCHAR[]", Int64List: "BIGINT[]",
}

// fillFromPipelines runs the data pipelines against the fake so every
// table has rows.
func fillFromPipelines(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	srv := fixtures.New(fixtures.DefaultOptions())
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	apiURL, adsURL, sb := srv.URLs(hs.URL)
	o := srv.Options()
	client, err := api.NewClient(api.Config{APIURL: apiURL, AdsURL: adsURL, SandboxAdsURL: sb,
		Credentials: api.Credentials{ConsumerKey: o.ConsumerKey, ConsumerSecret: o.ConsumerSecret},
		UserToken:   &api.Token{Token: o.OwnerToken, Secret: o.OwnerSecret}})
	require.NoError(t, err)

	truth := srv.V2Truth()
	ids := append(append([]string{}, truth.PostIDs[:min(60, len(truth.PostIDs))]...), truth.MissingIDs[:1]...)
	_, err = (&posts.Fetcher{Client: client, Pool: pool}).Fetch(ctx, ids)
	require.NoError(t, err)
	_, err = (&insights.Runner{Client: client, Pool: pool}).RunLookback(ctx, []insights.KeywordSet{
		{Name: "shoes", Keywords: []string{"running shoes", "trail shoes"}, NegativeKeywords: []string{"used"}, Granularity: "DAY"},
	}, 10*24*time.Hour)
	require.NoError(t, err)

	// An audience upload of the sample CRM file.
	acct := ""
	for id := range srv.AdsTruth().Accounts {
		if acct == "" || id < acct {
			acct = id
		}
	}
	aud, err := audience.CreateAudience(ctx, client, acct, "export test audience")
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "crm.csv")
	require.NoError(t, os.WriteFile(file, fixtures.SampleCRM, 0o600))
	norm, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	var seqs []int
	var upload int64
	_, err = audience.Plan(ctx, pool, audience.PlanOptions{AccountID: acct, AudienceID: aud, Path: file,
		Operation: "update", Mode: "add", Normalizer: norm, Workers: 1, MaxUsers: 500,
		Enqueue: func(_ context.Context, _ pgx.Tx, id int64, s []int) error { upload, seqs = id, s; return nil }})
	require.NoError(t, err)
	sender := &audience.Sender{Pool: pool, API: client}
	for _, seq := range seqs {
		require.NoError(t, sender.Send(ctx, upload, seq))
	}
}

func TestEveryTableExportsWithDeclaredTypesAndPostgresCounts(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 20)
	fillFromPipelines(t, pool)
	ctx := context.Background()
	res, err := Run(ctx, pool, Options{Out: out})
	require.NoError(t, err)
	require.Len(t, res.Tables, len(Tables()), "every registered table is exported")

	byTable := map[string]Table{}
	for _, tb := range Tables() {
		byTable[tb.Name] = tb
	}
	d := duck(t, files(res, out), nil)
	rowsByTable := map[string]int64{}
	for _, f := range d.Files {
		rel, _ := filepath.Rel(out, f.File)
		name := filepath.Dir(filepath.Dir(rel))
		rowsByTable[name] += f.Rows
		got := map[string]string{}
		for _, c := range f.Columns {
			got[c.Name] = c.Type
		}
		delete(got, "dt")
		want := map[string]string{}
		for _, c := range byTable[name].Columns {
			want[c.Name] = duckType[c.Kind]
		}
		require.Equal(t, want, got, "column types of %s", name)
	}
	for _, tr := range res.Tables {
		var n int64
		require.NoError(t, pool.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM %s", byTable[tr.Name].From)).Scan(&n))
		require.Equal(t, n, rowsByTable[tr.Name], "DuckDB reads as many %s rows as Postgres holds", tr.Name)
		require.Equal(t, n, tr.Rows)
		if tr.Name == "audience_batches" {
			var body int
			require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM audience_batches WHERE body IS NOT NULL").Scan(&body))
			require.Positive(t, body)
			for _, c := range byTable[tr.Name].Columns {
				require.NotEqual(t, "body", c.Name, "no hashes of people in exports")
			}
		}
		if tr.Name != "sync_runs" {
			require.Positive(t, n, "the pipelines filled %s", tr.Name)
		}
	}
}
