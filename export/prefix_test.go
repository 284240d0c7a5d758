package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/adsync/adsync/fixtures/s3test"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// These tests export to a real S3-compatible server (versitygw with its
// POSIX backend) and check what landed with Debian's boto3, a client we
// did not write. They set the AWS environment, so they do not run in
// parallel.

// s3Keys lists the keys under prefix/ (relative to it), sorted, with sizes.
func s3Keys(t *testing.T, srv *s3test.Server, bucket, prefix string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, o := range srv.List(t, bucket, prefix+"/") {
		out[strings.TrimPrefix(o.Key, prefix+"/")] = o.Size
	}
	return out
}

// s3Setup starts a server, points the AWS environment at it and returns a
// database with rows test items and the URL of the prefix "p".
func s3Setup(t *testing.T, rows int) (*s3test.Server, *pgxpool.Pool, string) {
	t.Helper()
	srv := s3test.Start(t)
	srv.Setenv(t)
	pool, _ := setup(t, rows)
	return srv, pool, srv.URL(srv.Bucket, "p")
}

func parquetKeys(keys map[string]int64) []string {
	var out []string
	for k := range keys {
		if strings.HasSuffix(k, ".parquet") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func TestS3ExportListsEveryObjectWithItsSizeAndSHA256AndDuckDBReadsThem(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	pool, _ := setup(t, 100)
	ctx := context.Background()
	res, err := Run(ctx, pool, Options{Out: srv.URL(srv.Bucket, "exports/ads"), Tables: []string{"test_items"}, RowsPerFile: 40, RowsPerRowGroup: 10})
	require.NoError(t, err)
	require.Equal(t, "s3://"+srv.Bucket+"/exports/ads/_manifests/run-"+itoa(res.RunID)+".json", res.Manifest)
	require.Len(t, res.Tables[0].Files, 3)

	keys := s3Keys(t, srv, srv.Bucket, "exports/ads")
	want := map[string]int64{}
	for _, f := range res.Tables[0].Files {
		want[f.Path] = f.Bytes
	}
	got := map[string]int64{}
	for _, k := range parquetKeys(keys) {
		got[k] = keys[k]
	}
	require.Equal(t, want, got, "boto3 lists exactly the manifest's objects with their sizes")
	require.Contains(t, keys, markerName)
	require.Contains(t, keys, "_manifests/run-"+itoa(res.RunID)+".json")
	require.Len(t, keys, 5, "the marker, the manifest and the parts; nothing else")
	for _, o := range srv.List(t, srv.Bucket, "exports/ads/test_items/") {
		require.Equal(t, map[string]string{"adsync-output": res.OutputID, "adsync-run": itoa(res.RunID)}, o.Metadata,
			"each object names the output and run that wrote it")
	}
	require.Empty(t, srv.Uploads(t, srv.Bucket, "exports/"), "no multipart upload is left in progress")

	dir := t.TempDir()
	srv.Download(t, srv.Bucket, "exports/ads/", dir)
	var local []string
	for _, f := range res.Tables[0].Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		require.NoError(t, err)
		sum := sha256.Sum256(b)
		require.Equal(t, f.SHA256, hex.EncodeToString(sum[:]), f.Path)
		local = append(local, filepath.Join(dir, filepath.FromSlash(f.Path)))
	}
	m, err := ReadManifest(filepath.Join(dir, "_manifests", "run-"+itoa(res.RunID)+".json"))
	require.NoError(t, err)
	require.Equal(t, res.Tables[0].Files, m.Tables[0].Files, "the manifest object lists each object with its size and SHA-256")
	d := duck(t, local, map[string]string{"n": "SELECT count(*) AS n, sum(id)::BIGINT AS s FROM read_parquet('" + filepath.Join(dir, "test_items") + "/*/*.parquet')"})
	require.EqualValues(t, 100, toFloat(d.Queries["n"][0]["n"]))
	require.EqualValues(t, 5050, toFloat(d.Queries["n"][0]["s"]))

	// The second run is incremental for this prefix.
	insertItems(t, pool, 101, 110)
	next, err := Run(ctx, pool, Options{Out: srv.URL(srv.Bucket, "exports/ads"), Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 10, next.Tables[0].Rows)
	var uploads int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM export_uploads`).Scan(&uploads))
	require.Zero(t, uploads, "a committed run's journal is dropped")
}

func TestS3PrefixAdsyncDidNotCreateIsRefusedAndNothingInItIsTouched(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	pool, _ := setup(t, 5)
	ctx := context.Background()
	srv.Put(t, srv.Bucket, "team/notes.txt", []byte("mine"))
	_, err := Run(ctx, pool, Options{Out: srv.URL(srv.Bucket, "team"), Tables: []string{"test_items"}})
	var oe *OwnershipError
	require.ErrorAs(t, err, &oe)
	require.Contains(t, err.Error(), "s3://"+srv.Bucket+"/team")
	require.Contains(t, err.Error(), "notes.txt")
	require.Equal(t, map[string]int64{"notes.txt": 4}, s3Keys(t, srv, srv.Bucket, "team"))

	// A prefix another database owns is refused naming both.
	_, err = Run(ctx, pool, Options{Out: srv.URL(srv.Bucket, "mine"), Tables: []string{"test_items"}})
	require.NoError(t, err)
	other, _ := setup(t, 5)
	_, err = Run(ctx, other, Options{Out: srv.URL(srv.Bucket, "mine"), Tables: []string{"test_items"}})
	require.ErrorAs(t, err, &oe)
	id, _ := databaseID(t, pool)
	otherID, _ := databaseID(t, other)
	require.Contains(t, err.Error(), id)
	require.Contains(t, err.Error(), otherID)
	state, err := CheckOutput(ctx, other, srv.URL(srv.Bucket, "mine"))
	require.ErrorAs(t, err, &oe, "doctor's check applies the same rule")
	require.Empty(t, state)
	state, err = CheckOutput(ctx, pool, srv.URL(srv.Bucket, "mine"))
	require.NoError(t, err)
	require.Equal(t, FolderOwned, state)
	require.Len(t, parquetKeys(s3Keys(t, srv, srv.Bucket, "mine")), 1, "the owner's export is intact; the write check left nothing")
}

func TestS3RunThatFailsOrDiesBeforePublishingLeavesNothingVisibleAndTheNextAbortsItsUploads(t *testing.T) {
	srv, pool, out := s3Setup(t, 100)
	ctx := context.Background()

	// A failure mid-table: every upload is aborted at once.
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20,
		afterRows: func(_ string, n int64) error {
			if n == 70 {
				return errors.New("boom")
			}
			return nil
		}})
	require.ErrorContains(t, err, "boom")
	require.Empty(t, parquetKeys(s3Keys(t, srv, srv.Bucket, "p")))
	require.Empty(t, srv.Uploads(t, srv.Bucket, "p/"))

	// A process that dies with every file uploaded but none completed.
	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20,
		halt: func(step string) bool { return step == "written" }})
	require.ErrorIs(t, err, errHalted)
	require.Empty(t, parquetKeys(s3Keys(t, srv, srv.Bucket, "p")), "a reader listing the prefix sees nothing of the dead run")
	require.Len(t, srv.Uploads(t, srv.Bucket, "p/"), 5, "its five uploads wait, not completed")
	// Another client's upload in progress under the prefix.
	theirs := srv.StartUpload(t, srv.Bucket, "p/test_items/theirs.parquet")

	res, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20})
	require.NoError(t, err)
	require.EqualValues(t, 100, res.Tables[0].Rows, "the next run exports what the dead one did not commit")
	require.Equal(t, []s3test.Upload{theirs}, srv.Uploads(t, srv.Bucket, "p/"), "it aborted the dead run's uploads, and only those")
	require.Len(t, parquetKeys(s3Keys(t, srv, srv.Bucket, "p")), 5)
	requireOutcome(t, pool, res.RunID-1, "failed")
}

func TestS3RunKilledWhilePublishingIsUndoneExactlyByTheNext(t *testing.T) {
	srv, pool, out := s3Setup(t, 100)
	ctx := context.Background()
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20,
		halt: func(step string) bool { return step == "placed" }})
	require.ErrorIs(t, err, errHalted)
	killed := parquetKeys(s3Keys(t, srv, srv.Bucket, "p"))
	require.Len(t, killed, 5, "the killed run had completed its uploads")
	// Someone replaced one of them meanwhile.
	srv.Put(t, srv.Bucket, "p/"+killed[0], []byte("mine now"))

	res, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20})
	require.NoError(t, err)
	require.EqualValues(t, 100, res.Tables[0].Rows)
	keys := s3Keys(t, srv, srv.Bucket, "p")
	require.EqualValues(t, 8, keys[killed[0]], "an object the run did not write is kept")
	for _, k := range killed[1:] {
		require.NotContains(t, keys, k, "the killed run's own objects are removed")
	}
	requireOutcome(t, pool, res.RunID-1, "failed")
}

func TestS3RunKilledAfterCommittingHasItsManifestAndOneWithoutItGetsItFromTheNext(t *testing.T) {
	srv, pool, out := s3Setup(t, 30)
	ctx := context.Background()
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20,
		halt: func(step string) bool { return step == "committed" }})
	require.ErrorIs(t, err, errHalted)
	keys := s3Keys(t, srv, srv.Bucket, "p")
	killed := parquetKeys(keys)
	require.Len(t, killed, 2)
	var run int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT max(id) FROM sync_runs`).Scan(&run))
	manifest := "_manifests/run-" + itoa(run) + ".json"
	require.Contains(t, keys, manifest, "a committed run has its manifest")
	// As an adsync that wrote the manifest after committing left a run
	// killed in between: committed, without its manifest.
	srv.Delete(t, srv.Bucket, "p/"+manifest)

	next, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.Zero(t, next.Tables[0].Rows, "the killed run was committed: nothing to export again")
	keys = s3Keys(t, srv, srv.Bucket, "p")
	require.Equal(t, killed, parquetKeys(keys), "its objects stay")
	require.Contains(t, keys, manifest, "and get their manifest")
}

func TestS3RunKilledAfterWritingItsManifestButBeforeCommittingIsUndoneByTheNext(t *testing.T) {
	srv, pool, out := s3Setup(t, 30)
	ctx := context.Background()
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20,
		halt: func(step string) bool { return step == "manifest" }})
	require.ErrorIs(t, err, errHalted)
	keys := s3Keys(t, srv, srv.Bucket, "p")
	require.Len(t, parquetKeys(keys), 2, "the killed run had completed its uploads")
	var run int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT max(id) FROM sync_runs`).Scan(&run))
	require.Contains(t, keys, "_manifests/run-"+itoa(run)+".json", "and written its manifest")

	next, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20})
	require.NoError(t, err)
	require.EqualValues(t, 30, next.Tables[0].Rows, "the killed run never committed: its rows are exported again")
	keys = s3Keys(t, srv, srv.Bucket, "p")
	require.NotContains(t, keys, "_manifests/run-"+itoa(run)+".json", "its manifest is removed with its objects")
	require.Contains(t, keys, "_manifests/run-"+itoa(next.RunID)+".json")
	require.Len(t, parquetKeys(keys), 2)
	requireOutcome(t, pool, run, "failed")
}

func TestS3AnObjectAlreadyAtAFinalKeyIsNeverReplaced(t *testing.T) {
	srv, pool, out := s3Setup(t, 5)
	ctx := context.Background()
	first, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	insertItems(t, pool, 6, 7)
	next := first.RunID + 1
	key := "p/test_items/" + first.Partition + "/part-" + itoa(next) + "-1.parquet"
	srv.Put(t, srv.Bucket, key, []byte("not adsync's"))
	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.ErrorContains(t, err, "already exists and adsync did not write it")
	require.EqualValues(t, 12, s3Keys(t, srv, srv.Bucket, "p")[strings.TrimPrefix(key, "p/")])
	require.Empty(t, srv.Uploads(t, srv.Bucket, "p/"))
}

func TestS3OutputsAreCheckedBeforeAnythingIsOpened(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"s3://AKIAEXAMPLE:topsecret@bucket/p", "credentials in the URL are refused"},
		{"gs://bucket/p", `scheme "gs" is not supported`},
		{"s3:///p", "no bucket"},
		{"s3://bucket?prefix=p/", "give the prefix in the path"},
		{"s3://bucket/p?region=eu-west-1&aws_secret_access_key=topsecret", `query parameter "aws_secret_access_key" is refused`},
		{"s3://bucket/p?X-Amz-Credential=AKIAEXAMPLE", `query parameter "X-Amz-Credential" is refused`},
		{"s3://bucket/p?endpoint=http://localhost:9000&colour=topsecret", `unknown query parameter "colour"`},
	} {
		_, err := ParseOutput(tc.out)
		require.ErrorContains(t, err, tc.want, tc.out)
		require.NotContains(t, err.Error(), "topsecret")
		require.NotContains(t, err.Error(), "AKIAEXAMPLE")
	}
}

func requireOutcome(t *testing.T, pool *pgxpool.Pool, run int64, want string) {
	t.Helper()
	var outcome string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT outcome FROM sync_runs WHERE id = $1`, run).Scan(&outcome))
	require.Equal(t, want, outcome)
}

func TestAFileURLIsTheLocalFolder(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 5)
	res, err := Run(context.Background(), pool, Options{Out: "file://" + filepath.ToSlash(out), Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.Equal(t, filepath.Join(out, manifestDir, "run-"+itoa(res.RunID)+".json"), res.Manifest)
	require.FileExists(t, filepath.Join(out, markerName))
	_, err = ParseOutput("file://otherhost/x")
	require.ErrorContains(t, err, "file:///path")
}

func TestS3WithoutRegionOrCredentialsSaysWhatToSet(t *testing.T) {
	srv, pool, _ := s3Setup(t, 1)
	ctx := context.Background()
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	noRegion := "s3://" + srv.Bucket + "/p?endpoint=" + srv.Endpoint + "&use_path_style=true"
	_, err := Run(ctx, pool, Options{Out: noRegion, Tables: []string{"test_items"}})
	require.ErrorContains(t, err, "no region: add region=")

	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	_, err = Run(ctx, pool, Options{Out: srv.URL(srv.Bucket, "p"), Tables: []string{"test_items"}})
	require.ErrorContains(t, err, "no AWS credentials were found")
	require.Empty(t, srv.List(t, srv.Bucket, ""))
}

func TestS3EndpointAndRegionFromTheStandardAWSEnvironment(t *testing.T) {
	srv, pool, _ := s3Setup(t, 3) // AWS_ENDPOINT_URL and AWS_REGION are set
	res, err := Run(context.Background(), pool, Options{Out: "s3://" + srv.Bucket + "/env?use_path_style=true", Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 3, res.Tables[0].Rows)
	require.Len(t, parquetKeys(s3Keys(t, srv, srv.Bucket, "env")), 1)
}

// A store that does not implement conditional writes (If-None-Match) gets
// a check and a plain write instead: the export still works, and still
// never replaces an object. The store here is versitygw behind a proxy
// that answers every conditional request 501 NotImplemented.
func TestS3StoreWithoutConditionalWritesStillExports(t *testing.T) {
	srv, pool, _ := s3Setup(t, 30)
	target, err := url.Parse(srv.Endpoint)
	require.NoError(t, err)
	var refused atomic.Int64
	rp := httputil.NewSingleHostReverseProxy(target) // keeps the Host header the client signed
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") != "" {
			refused.Add(1)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotImplemented)
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>A header you provided implies functionality that is not implemented</Message></Error>`)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	out := "s3://" + srv.Bucket + "/p?endpoint=" + url.QueryEscape(proxy.URL) + "&use_path_style=true&region=" + srv.Region
	ctx := context.Background()
	res, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20})
	require.NoError(t, err)
	require.EqualValues(t, 30, res.Tables[0].Rows)
	require.GreaterOrEqual(t, refused.Load(), int64(3), "the marker and both completions were first asked conditionally")
	keys := s3Keys(t, srv, srv.Bucket, "p")
	require.Contains(t, keys, markerName)
	require.Len(t, parquetKeys(keys), 2)

	// An object at the next run's key is still never replaced.
	insertItems(t, pool, 31, 32)
	key := "p/test_items/" + res.Partition + "/part-" + itoa(res.RunID+1) + "-1.parquet"
	srv.Put(t, srv.Bucket, key, []byte("not adsync's"))
	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.ErrorContains(t, err, "already exists and adsync did not write it")
	require.EqualValues(t, 12, s3Keys(t, srv, srv.Bucket, "p")[strings.TrimPrefix(key, "p/")])
	state, err := CheckOutput(ctx, pool, out)
	require.NoError(t, err, "doctor's write check works there too")
	require.Equal(t, FolderOwned, state)
}
