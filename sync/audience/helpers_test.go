package audience_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
)

func TestMain(m *testing.M) {
	// The peak-memory benchmark plans in a child process of this binary.
	if os.Getenv(rssChildEnv) != "" {
		os.Exit(rssChild())
	}
	os.Exit(localpg.Main(m))
}

// sentRequest is one audience users request the spy saw.
type sentRequest struct {
	Bytes int
	Ops   []sentOp
}

type sentOp struct {
	Type  string
	Users []map[string][]string
}

func (r sentRequest) users() int {
	n := 0
	for _, op := range r.Ops {
		n += len(op.Users)
	}
	return n
}

// spy records every audience users request body before the fake (and its
// faults) sees it.
type spy struct {
	mu   sync.Mutex
	reqs []sentRequest
	next http.Handler
}

func (s *spy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/users") {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var ops []struct {
			OperationType string `json:"operation_type"`
			Params        struct {
				Users []map[string][]string `json:"users"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &ops)
		sr := sentRequest{Bytes: len(body)}
		for _, op := range ops {
			sr.Ops = append(sr.Ops, sentOp{Type: op.OperationType, Users: op.Params.Users})
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, sr)
		s.mu.Unlock()
	}
	s.next.ServeHTTP(w, r)
}

func (s *spy) requests() []sentRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// bundle is a migrated database, the fake behind a spy, and an audience.
type bundle struct {
	t          testing.TB
	pool       *pgxpool.Pool
	fake       *synctest.Fake
	srv        *fixtures.Server
	spy        *spy
	deps       *jobs.Deps
	account    string
	audienceID string
	dir        string
	// timeout, when set, bounds each request of workers started later
	// instead of the fake's default.
	timeout time.Duration
}

func setup(t testing.TB) *bundle {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	srv := fixtures.New(fixtures.DefaultOptions())
	sp := &spy{next: srv}
	hs := httptest.NewServer(sp)
	t.Cleanup(hs.Close)
	fake := &synctest.Fake{Srv: srv}
	fake.APIURL, fake.AdsURL, fake.SandboxAdsURL = srv.URLs(hs.URL)
	b := &bundle{t: t, pool: pool, fake: fake, srv: srv, spy: sp, dir: t.TempDir()}
	b.deps = b.newDeps()
	truth := srv.AdsTruth()
	var accounts []string
	for id, kinds := range truth.Accounts {
		if len(kinds["custom_audiences"].IDs) > 0 {
			accounts = append(accounts, id)
		}
	}
	require.NotEmpty(t, accounts)
	slices.Sort(accounts)
	b.account = accounts[0]
	b.audienceID = truth.Accounts[b.account]["custom_audiences"].IDs[0]
	require.Empty(t, srv.AdsTruth().Membership[b.audienceID]["email"].Hashes, "the audience starts empty")
	return b
}

// newDeps builds worker dependencies with their own service client (the
// governor's budget is shared through Postgres).
func (b *bundle) newDeps() *jobs.Deps {
	cfg := b.fake.Config(b.pool)
	if b.timeout != 0 {
		cfg.Timeout = b.timeout
	}
	c, err := api.NewClient(cfg)
	require.NoError(b.t, err)
	return &jobs.Deps{Pool: b.pool, API: c, Log: zaptest.NewLogger(b.t, zaptest.Level(zap.WarnLevel))}
}

// inserter is an insert-only River client for planning.
func (b *bundle) inserter() *river.Client[pgx.Tx] {
	rc, err := jobs.NewClient(b.deps, jobs.Options{})
	require.NoError(b.t, err)
	return rc
}

func (b *bundle) startWorker() *river.Client[pgx.Tx] {
	return jobstest.StartWorker(b.t, b.newDeps(), jobs.Options{FetchPollInterval: 20 * time.Millisecond})
}

// writeFile writes a file in the test's directory and returns its path.
func (b *bundle) writeFile(name, content string) string {
	p := filepath.Join(b.dir, name)
	require.NoError(b.t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// options are PlanOptions for path to the bundle's audience.
func (b *bundle) options(path string) audience.PlanOptions {
	n, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(b.t, err)
	return audience.PlanOptions{
		AccountID: b.account, AudienceID: b.audienceID, Path: path,
		Operation: audience.OperationUpdate, Mode: audience.ModeAdd,
		Normalizer: n, Workers: 2, Enqueue: jobs.AudienceEnqueuer(b.inserter()),
	}
}

func (b *bundle) plan(o audience.PlanOptions) *audience.PlanResult {
	b.t.Helper()
	res, err := audience.Plan(context.Background(), b.pool, o)
	require.NoError(b.t, err)
	return res
}

// waitFinished waits until upload id has no batch left to send.
func (b *bundle) waitFinished(id int64) audience.Progress {
	b.t.Helper()
	var p audience.Progress
	require.Eventually(b.t, func() bool {
		var err error
		p, err = audience.LoadProgress(context.Background(), b.pool, id)
		require.NoError(b.t, err)
		return p.Finished() && p.State != audience.StatePlanned
	}, 5*time.Minute, 20*time.Millisecond, "the upload to finish (a loaded machine takes minutes; the wait ends when it does)")
	return p
}

// membership is the fake's stored membership of the bundle's audience.
func (b *bundle) membership() map[string][]string {
	out := map[string][]string{}
	for typ, m := range b.srv.AdsTruth().Membership[b.audienceID] {
		if len(m.Hashes) > 0 {
			out[typ] = m.Hashes
		}
	}
	return out
}

// storedMembers is adsync's own record of the audience's membership.
func (b *bundle) storedMembers() map[string][]string {
	rows, err := b.pool.Query(context.Background(), `SELECT type, hash FROM audience_members WHERE audience_id = $1 ORDER BY type, hash`, b.audienceID)
	require.NoError(b.t, err)
	out := map[string][]string{}
	var typ, hash string
	_, err = pgx.ForEachRow(rows, []any{&typ, &hash}, func() error {
		out[typ] = append(out[typ], hash)
		return nil
	})
	require.NoError(b.t, err)
	return out
}

// expectedSet hashes path's valid rows independently of the upload, as
// sorted hashes per type.
func expectedSet(t *testing.T, path string) map[string][]string {
	t.Helper()
	n, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	src, format, err := hashing.Open(path)
	require.NoError(t, err)
	defer src.Close()
	rr, err := hashing.NewReader(src, format, hashing.ReaderOptions{})
	require.NoError(t, err)
	sets := map[string]map[string]bool{}
	require.NoError(t, hashing.HashRecords(rr, n, func(u hashing.HashedUser) error {
		for _, typ := range hashing.Types() {
			for _, v := range u.Values(typ) {
				if sets[string(typ)] == nil {
					sets[string(typ)] = map[string]bool{}
				}
				sets[string(typ)][v] = true
			}
		}
		return nil
	}, &hashing.Report{}))
	out := map[string][]string{}
	for typ, set := range sets {
		for h := range set {
			out[typ] = append(out[typ], h)
		}
		slices.Sort(out[typ])
	}
	return out
}

// emailsCSV is a CSV of n users email{from..from+n-1}@example.com with a
// device id each.
func emailsCSV(from, n int) string {
	var s strings.Builder
	s.WriteString("email,device_id\n")
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&s, " User%d@Example.com ,%08x-0000-4000-8000-000000000000\n", i, i)
	}
	return s.String()
}
