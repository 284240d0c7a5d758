package webui

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }

// pinnedNow is the clock of these tests: the chart ends on its day,
// whatever today is.
var pinnedNow = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

type testBundle struct {
	pool *pgxpool.Pool
	srv  *Server
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	return &testBundle{pool: pool, srv: New(Options{Pool: pool, Now: func() time.Time { return pinnedNow }})}
}

// seedRun records a finished run started at, returning its id.
func (b *testBundle) seedRun(t *testing.T, pipeline, outcome string, at time.Time, counts, errMsg string) int64 {
	t.Helper()
	var id int64
	require.NoError(t, b.pool.QueryRow(context.Background(), `INSERT INTO sync_runs (pipeline, trigger, started_at, finished_at, outcome, counts, error)
VALUES ($1, 'schedule', $2::timestamptz, $2::timestamptz + interval '1500 milliseconds', $3, $4::jsonb, NULLIF($5, '')) RETURNING id`,
		pipeline, at, outcome, counts, errMsg).Scan(&id))
	return id
}

func (b *testBundle) get(t *testing.T, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	b.srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

func TestRunsPageListsRunsOfEveryKindWithFailuresRedacted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	at := pinnedNow.Add(-2 * time.Hour)
	ids := map[string]int64{}
	for _, p := range []string{"sync", "audience", "insights", "posts", "stats", "export"} {
		ids[p] = b.seedRun(t, p, "succeeded", at, `{"fetched": 3}`, "")
	}
	failed := b.seedRun(t, "sync", "failed", at, `{"campaigns": {"fetched": 2}}`,
		"campaigns acc-9: GET /12/accounts/acc-9/campaigns: HTTP 401; access_token=tok-leak")
	_, err := b.pool.Exec(ctx, `INSERT INTO sync_run_units (run_id, account_id, entity, state, error)
VALUES ($1, 'acc-9', 'campaigns', 'failed', 'Authorization: Bearer bearer-leak')`, failed)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `INSERT INTO accounts (id, raw, doc_hash) VALUES ('acc-lost', '{}', 'h');
INSERT INTO account_users (account_id, user_id, lost_at) VALUES ('acc-lost', 'u1', now())`)
	require.NoError(t, err)

	code, body := b.get(t, "/")
	require.Equal(t, http.StatusOK, code, body)
	for p, id := range ids {
		require.Regexp(t, fmt.Sprintf(`<tr class="run" data-pipeline="%s" data-outcome="succeeded">\s*<td><a href="/runs/%d">%d</a>`, p, id, id), body)
	}
	require.Contains(t, body, `>schedule<`)
	require.Contains(t, body, `>1.5s<`, "the duration")
	require.Contains(t, body, `>3 fetched<`, "a sync's counts, as a sentence")
	require.Contains(t, body, "access_token=[redacted]", "the failed run's error, redacted as status does")
	require.Contains(t, body, "Bearer [redacted]", "the failed account's error")
	require.Regexp(t, `<td>acc-9</td><td>campaigns failed</td>`, body)
	require.Regexp(t, `<td>acc-lost</td><td>unreachable</td>`, body)
	require.NotContains(t, body, "tok-leak")
	require.NotContains(t, body, "bearer-leak")
	require.NotContains(t, body, "<script", "the page needs no JavaScript")
	require.NotRegexp(t, `(src|href)="https?://`, body, "nothing is loaded from the internet")
}

// bars finds a series' bars: day and value.
func bars(t *testing.T, body, class string) [][2]string {
	t.Helper()
	re := regexp.MustCompile(`<rect class="bar ` + class + `" data-day="([0-9-]+)" data-value="([0-9]+)"`)
	var out [][2]string
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

func TestRunsPageChartsThirtyDaysOneBarADay(t *testing.T) {
	t.Parallel()
	b := setup(t)
	today := time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	b.seedRun(t, "sync", "succeeded", today.Add(time.Hour), `{"campaigns": {"fetched": 40, "inserted": 1}, "cards": {"fetched": 2}, "inaccessible_accounts": ["x"]}`, "")
	b.seedRun(t, "sync", "failed", today.AddDate(0, 0, -3).Add(time.Hour), `{}`, "boom")
	b.seedRun(t, "audience", "succeeded", today.AddDate(0, 0, -29).Add(time.Minute), `{"users": 9, "users_accepted": 7}`, "")
	b.seedRun(t, "export", "succeeded", today.AddDate(0, 0, -10), `{"campaigns": 5, "cards": 6}`, "")
	b.seedRun(t, "export", "succeeded", today.AddDate(0, 0, -30).Add(23*time.Hour), `{"campaigns": 1000}`, "") // a day before the window
	b.seedRun(t, "sync", "succeeded", today.AddDate(0, 0, 1), `{"campaigns": {"fetched": 1000}}`, "")          // after the pinned clock's day

	code, body := b.get(t, "/")
	require.Equal(t, http.StatusOK, code, body)
	want := map[string]map[string]string{
		"synced":   {"2026-03-15": "42"},
		"uploaded": {"2026-02-14": "7"},
		"exported": {"2026-03-05": "11"},
		"failed":   {"2026-03-12": "1"},
	}
	for class, nonZero := range want {
		got := bars(t, body, class)
		require.Len(t, got, ChartDays, class)
		require.Equal(t, "2026-02-14", got[0][0], class)
		require.Equal(t, "2026-03-15", got[ChartDays-1][0], class)
		for i, g := range got {
			require.Equal(t, today.AddDate(0, 0, i-(ChartDays-1)).Format("2006-01-02"), g[0], "%s: one bar a day, in order", class)
			v, ok := nonZero[g[0]]
			if !ok {
				v = "0"
			}
			require.Equal(t, v, g[1], "%s on %s", class, g[0])
		}
	}
}

func TestRunPageShowsUnitsEntityCountsAndErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.seedRun(t, "sync", "partial", pinnedNow, `{"campaigns": {"fetched": 5}}`, "campaigns acc-2: HTTP 500; consumer_secret=cs-leak")
	_, err := b.pool.Exec(context.Background(), `INSERT INTO sync_run_units (run_id, account_id, entity, state, fetched, inserted, error) VALUES
($1, 'acc-1', 'campaigns', 'succeeded', 5, 4, NULL), ($1, 'acc-2', 'campaigns', 'failed', 0, 0, 'HTTP 500; consumer_secret=cs-leak')`, id)
	require.NoError(t, err)

	code, body := b.get(t, fmt.Sprintf("/runs/%d", id))
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, fmt.Sprintf("Run %d: sync", id))
	require.Regexp(t, `<tr><td>campaigns</td><td class="num">2</td><td class="num">1</td><td class="num">0</td><td class="num">0</td>\s*<td class="num">5</td><td class="num">4</td>`, body, "per-entity counts")
	require.Regexp(t, `<tr><td>acc-2</td><td>campaigns</td><td class="outcome failed">failed</td>`, body, "the failed unit comes first")
	require.Contains(t, body, "consumer_secret=[redacted]")
	require.NotContains(t, body, "cs-leak")

	code, _ = b.get(t, "/runs/999999")
	require.Equal(t, http.StatusNotFound, code)
	code, _ = b.get(t, "/runs/x")
	require.Equal(t, http.StatusNotFound, code)
}

// listen serves h on addr (host:0) and returns the URL to reach it.
func listen(t *testing.T, addr string, h func(net.Addr) http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	srv := &http.Server{Handler: h(ln.Addr()), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return "http://127.0.0.1:" + port
}

func TestAccessOpenOnLoopbackRefusedElsewhereUnlessThePasswordIsGiven(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "page") })
	type try struct {
		user, pass string // "" user: no credentials
		code       int
	}
	for _, tc := range []struct {
		name, addr, password string
		tries                []try
	}{
		{"loopback, no password", "127.0.0.1:0", "", []try{{"", "", 200}}},
		{"loopback, password set", "127.0.0.1:0", "s3cret-pw", []try{{"", "", 200}, {"admin", "wrong", 200}}},
		{"any address, no password", "0.0.0.0:0", "", []try{{"", "", 403}, {"admin", "anything", 403}}},
		{"any address, password set", "0.0.0.0:0", "s3cret-pw", []try{
			{"", "", 401}, {"admin", "wrong", 401}, {"admin", "s3cret-pw-longer", 401}, {"root", "s3cret-pw", 401}, {"admin", "s3cret-pw", 200}}},
	} {
		base := listen(t, tc.addr, func(a net.Addr) http.Handler {
			return Access{Loopback: IsLoopback(a), Password: tc.password}.Wrap(ok)
		})
		for _, tr := range tc.tries {
			req, err := http.NewRequest(http.MethodGet, base+"/", nil)
			require.NoError(t, err)
			if tr.user != "" {
				req.SetBasicAuth(tr.user, tr.pass)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, tr.code, resp.StatusCode, "%s: %s/%s", tc.name, tr.user, tr.pass)
			switch tr.code {
			case 200:
				require.Equal(t, "page", string(body))
			case 403:
				require.Contains(t, string(body), "set ADSYNC_UI_PASSWORD")
			case 401:
				require.Equal(t, `Basic realm="adsync", charset="UTF-8"`, resp.Header.Get("WWW-Authenticate"))
			}
			require.NotContains(t, string(body), "s3cret-pw", "the password is never shown")
		}
	}
}

func TestIsLoopbackOnlyForLoopbackAddresses(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{"127.0.0.1:9090": true, "[::1]:9090": true, "127.0.0.2:1": true,
		"0.0.0.0:9090": false, "[::]:9090": false, "10.1.2.3:9090": false} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		require.NoError(t, err)
		require.Equal(t, want, IsLoopback(tcp), addr)
	}
}

func TestRiverUIAnswersUnderRiverUI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	code, _ := b.get(t, "/riverui/")
	require.Equal(t, http.StatusServiceUnavailable, code, "not before the workers start")

	client, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h, err := RiverUI(ctx, client, slogDiscard())
	require.NoError(t, err)
	b.srv.SetRiverUI(h)

	code, body := b.get(t, "/riverui/")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "/riverui/assets/", "the UI's page names its embedded assets under the prefix")
	asset := regexp.MustCompile(`/riverui/assets/[^"]+\.js`).FindString(body)
	require.NotEmpty(t, asset, body)
	code, js := b.get(t, asset)
	require.Equal(t, http.StatusOK, code)
	require.NotEmpty(t, js)
	code, body = b.get(t, "/riverui/api/jobs?state=completed&limit=5")
	require.Equal(t, http.StatusOK, code, body)
	require.True(t, strings.HasPrefix(body, `{"data":`), body)
}

func slogDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestRunsPageIsUnchangedByPruningAYearOfRuns records a year of nightly
// sync runs with their units, prunes them to the default retention as the
// worker's schedule does, and reads the pages again: the runs list and the
// 30-day chart are what they were, a kept run's page still shows its
// units, and a pruned run's page says there is no such run.
func TestRunsPageIsUnchangedByPruningAYearOfRuns(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var oldest, newest int64
	require.NoError(t, b.pool.QueryRow(ctx, `
WITH runs AS (
    INSERT INTO sync_runs (pipeline, trigger, started_at, finished_at, outcome, counts)
    SELECT 'sync', 'schedule', $1::timestamptz - d * interval '1 day', $1::timestamptz - d * interval '1 day' + interval '2 minutes',
           'succeeded', '{"campaigns": {"fetched": 7}}'
    FROM generate_series(364, 0, -1) d
    RETURNING id),
units AS (
    INSERT INTO sync_run_units (run_id, account_id, entity, state)
    SELECT id, 'acc-' || a, 'campaigns', 'succeeded' FROM runs, generate_series(1, 3) a)
SELECT min(id), max(id) FROM runs`, pinnedNow.Add(-3*time.Hour)).Scan(&oldest, &newest))

	code, list := b.get(t, "/")
	require.Equal(t, http.StatusOK, code, list)
	code, page := b.get(t, fmt.Sprintf("/runs/%d", newest))
	require.Equal(t, http.StatusOK, code, page)
	code, _ = b.get(t, fmt.Sprintf("/runs/%d", oldest))
	require.Equal(t, http.StatusOK, code, "a year-old run has its page before pruning")

	var pruned store.Pruned
	for {
		p, err := store.PruneRuns(ctx, b.pool, pinnedNow.Add(-store.DefaultRunRetention), 100, 2)
		require.NoError(t, err)
		pruned.Runs += p.Runs
		if p.Runs == 0 {
			break
		}
	}
	require.Equal(t, int64(365-90), pruned.Runs, "nights 90 to 364 back ended before the 90-day bound")

	code, after := b.get(t, "/")
	require.Equal(t, http.StatusOK, code, after)
	require.Equal(t, list, after, "the runs page and its chart are unchanged")
	require.Len(t, bars(t, after, "synced"), ChartDays)
	code, pageAfter := b.get(t, fmt.Sprintf("/runs/%d", newest))
	require.Equal(t, http.StatusOK, code, pageAfter)
	require.Equal(t, page, pageAfter, "a kept run's page still shows its units")
	code, gone := b.get(t, fmt.Sprintf("/runs/%d", oldest))
	require.Equal(t, http.StatusNotFound, code, gone)
	require.Contains(t, gone, fmt.Sprintf("run %d: no such run", oldest))
}
