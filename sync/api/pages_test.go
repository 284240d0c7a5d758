package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

type record struct {
	ID        string `json:"id"`
	Deleted   bool   `json:"deleted"`
	UpdatedAt string `json:"updated_at"`
}

func firstAccount(t *testing.T, f *fake) string {
	t.Helper()
	truth := f.srv.AdsTruth()
	ids := make([]string, 0, len(truth.Accounts))
	for id := range truth.Accounts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids[0]
}

func campaigns(acct string) api.ListRequest {
	return api.ListRequest{Base: api.BaseAds, Path: "/12/accounts/" + acct + "/campaigns",
		Endpoint: "GET /12/accounts/{account_id}/campaigns", AccountID: acct,
		Query: url.Values{"with_deleted": {"true"}, "with_draft": {"true"}}}
}

func TestPagesFollowCursorsThroughEveryRecord(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.CampaignsPerAccount = 45 })
	acct := firstAccount(t, f)
	c := newClient(t, f.config())
	lr := campaigns(acct)
	lr.Count = 10
	seen := map[string]bool{}
	pages := 0
	for page, err := range api.Pages[record](context.Background(), c, lr) {
		require.NoError(t, err)
		pages++
		for _, r := range page.Items {
			require.False(t, seen[r.ID], "no duplicates across pages")
			seen[r.ID] = true
		}
		require.Len(t, page.Raw, len(page.Items))
	}
	truth := f.srv.AdsTruth().Accounts[acct]["campaigns"]
	require.Len(t, seen, truth.Live+truth.Deleted)
	require.Equal(t, (len(seen)+9)/10, pages)
}

func TestPagesUseTheEndpointMaximumByDefault(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.CardsPerAccount = 1000 })
	acct := firstAccount(t, f)
	c := newClient(t, f.config())
	lr := api.ListRequest{Base: api.BaseAds, Path: "/12/accounts/" + acct + "/cards", Endpoint: "GET /12/accounts/{account_id}/cards", AccountID: acct}
	var sizes []int
	for page, err := range api.Pages[record](context.Background(), c, lr) {
		require.NoError(t, err)
		sizes = append(sizes, len(page.Items))
	}
	require.Greater(t, len(sizes), 1)
	require.Equal(t, 200, sizes[0], "cards lists page at most 200")
	lr.Count = 201
	for _, err := range api.Pages[record](context.Background(), c, lr) {
		require.ErrorContains(t, err, "out of range 1-200")
	}
}

func TestPagesResumeFromASavedCursor(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.CampaignsPerAccount = 30 })
	acct := firstAccount(t, f)
	c := newClient(t, f.config())
	ctx := context.Background()
	lr := campaigns(acct)
	lr.Count = 7
	var all []string
	var cursor string
	for page, err := range api.Pages[record](ctx, c, lr) {
		require.NoError(t, err)
		for _, r := range page.Items {
			all = append(all, r.ID)
		}
		if cursor == "" {
			cursor = page.NextCursor
		}
	}
	lr.Cursor = cursor
	var resumed []string
	for page, err := range api.Pages[record](ctx, c, lr) {
		require.NoError(t, err)
		for _, r := range page.Items {
			resumed = append(resumed, r.ID)
		}
	}
	require.Equal(t, all[7:], resumed)
}

func TestTotalCountOnlyWhenAskedAndNeverWithACursor(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.CampaignsPerAccount = 12 })
	acct := firstAccount(t, f)
	c := newClient(t, f.config())
	ctx := context.Background()
	lr := campaigns(acct)
	lr.Count = 5
	var totals []*int64
	for page, err := range api.Pages[record](ctx, c, lr) {
		require.NoError(t, err)
		totals = append(totals, page.TotalCount)
	}
	for _, tc := range totals {
		require.Nil(t, tc)
	}
	lr.WithTotalCount = true
	totals = nil
	for page, err := range api.Pages[record](ctx, c, lr) {
		require.NoError(t, err)
		totals = append(totals, page.TotalCount)
	}
	require.NotNil(t, totals[0])
	truth := f.srv.AdsTruth().Accounts[acct]["campaigns"]
	require.EqualValues(t, truth.Live+truth.Deleted, *totals[0])
	for _, tc := range totals[1:] {
		require.Nil(t, tc, "later pages carry a cursor, so no total")
	}
	require.Equal(t, 2*len(totals), f.srv.Stats().Family("GET /12/accounts/{account_id}/campaigns").Requests, "one request per page")

	lr.Cursor = "abc"
	for _, err := range api.Pages[record](ctx, c, lr) {
		require.ErrorIs(t, err, api.ErrTotalCountWithCursor)
	}
}

func TestIDFiltersAreSplitIntoChunksOf200(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.CampaignsPerAccount = 20 })
	acct := firstAccount(t, f)
	c := newClient(t, f.config())
	truth := f.srv.AdsTruth().Accounts[acct]["campaigns"]
	ids := append([]string{}, truth.IDs...)
	for i := 0; len(ids) < 450; i++ {
		ids = append(ids, "nosuch"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	lr := campaigns(acct)
	found := map[string]bool{}
	for page, err := range api.PagesByIDs[record](context.Background(), c, lr, "campaign_ids", ids) {
		require.NoError(t, err)
		for _, r := range page.Items {
			found[r.ID] = true
		}
	}
	for _, id := range truth.IDs {
		require.True(t, found[id])
	}
	require.Equal(t, 3, f.srv.Stats().Family("GET /12/accounts/{account_id}/campaigns").Requests, "450 ids: three filters of at most 200")
}

func TestWithTotalCountRequestsHaveTheirOwnLowBudget(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.CampaignsPerAccount = 3 })
	rl := f.srv.RateLimits()
	rl.TotalCountLimit = 2
	f.srv.SetRateLimits(rl)
	acct := firstAccount(t, f)
	cfg := f.config()
	gov := api.NewGovernor(api.NewMemoryStore())
	gov.MaxWait = 0
	cfg.Governor = gov
	c := newClient(t, cfg)
	ctx := context.Background()
	lr := campaigns(acct)
	lr.WithTotalCount = true
	for i := 0; i < 2; i++ {
		for _, err := range api.Pages[record](ctx, c, lr) {
			require.NoError(t, err)
		}
	}
	var rae *api.RetryAtError
	for _, err := range api.Pages[record](ctx, c, lr) {
		require.ErrorAs(t, err, &rae, "the third with_total_count request is held back, not sent")
	}
	lr.WithTotalCount = false
	for _, err := range api.Pages[record](ctx, c, lr) {
		require.NoError(t, err, "plain listing keeps its own, larger budget")
	}
	require.Zero(t, f.srv.Stats().Family("GET /12/accounts/{account_id}/campaigns").Throttled)
}

func TestPGStoreForgetsReservationsOfADeadProcessAfterTheirTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := api.PGStore{Pool: migratedPool(t)}
	now := time.Now()
	ok, _, err := s.Reserve(ctx, "GET /x", now, nil, time.Second)
	require.NoError(t, err)
	require.True(t, ok, "the first request probes the unknown window")
	ok, _, err = s.Reserve(ctx, "GET /x", now.Add(500*time.Millisecond), nil, time.Second)
	require.NoError(t, err)
	require.False(t, ok, "the probe's answer is awaited")
	ok, _, err = s.Reserve(ctx, "GET /x", now.Add(1500*time.Millisecond), nil, time.Second)
	require.NoError(t, err)
	require.True(t, ok, "a probe nobody answered within its TTL no longer blocks")
}

// A page's records decoded into a type are checked by that decode (the page
// is split without validating it first): a malformed record is an error
// naming the endpoint, never a silently empty item.
func TestAMalformedRecordDecodedIntoATypeIsAnError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":[{"id":"a"},{"id":tru}],"next_cursor":null,"request":{}}`)
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, api.Config{APIURL: srv.URL, AdsURL: srv.URL, SandboxAdsURL: srv.URL,
		Credentials: api.Credentials{ConsumerKey: "k", ConsumerSecret: "s"}, UserToken: &api.Token{Token: "t", Secret: "s"},
		Timeout: 5 * time.Second, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
	var errs []error
	for page, err := range api.Pages[record](context.Background(), c, campaigns("a1")) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		t.Fatalf("a page with a malformed record was decoded: %+v", page.Items)
	}
	require.Len(t, errs, 1)
	require.ErrorContains(t, errs[0], "campaigns")
}

// A request's buckets (the endpoint's and the account's share) are
// reserved together and observed together; a bucket without room holds
// the request back and leaves no reservation on the other.
func TestPGGovernorReservesAndObservesEveryBucketOfARequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := migratedPool(t)
	g := api.NewGovernor(api.PGStore{Pool: pool})
	g.MaxWait = 0
	now := time.Now()
	g.Now = func() time.Time { return now }
	const endpoint, user = "GET /x", "u1"
	row := func(bucket string) (remaining, inflight int) {
		t.Helper()
		require.NoError(t, pool.QueryRow(ctx, `SELECT remaining, inflight FROM api_rate_limits WHERE bucket = $1`, bucket).
			Scan(&remaining, &inflight))
		return remaining, inflight
	}
	mine, account := endpoint+"|user:"+user, endpoint+"|user:"+user+"|account:a1"
	reset := now.Add(15 * time.Minute)

	b, err := g.Acquire(ctx, endpoint, user, "a1")
	require.NoError(t, err)
	require.Equal(t, []string{mine, account}, b, "unknown windows: one probe each")
	g.Observe(ctx, b, &api.RateLimit{Limit: 10, Remaining: 5, Reset: reset}, &api.RateLimit{Limit: 2, Remaining: 1, Reset: reset})
	require.NoError(t, g.Flush(ctx))
	for bucket, want := range map[string]int{mine: 5, account: 1} {
		remaining, inflight := row(bucket)
		require.Equal(t, [2]int{want, 0}, [2]int{remaining, inflight}, bucket)
	}

	b, err = g.Acquire(ctx, endpoint, user, "a1")
	require.NoError(t, err)
	require.Len(t, b, 2)
	for _, bucket := range b {
		_, inflight := row(bucket)
		require.Equal(t, 1, inflight, bucket)
	}
	_, err = g.Acquire(ctx, endpoint, user, "a1")
	var rae *api.RetryAtError
	require.ErrorAs(t, err, &rae, "the account's one remaining request is in flight")
	_, inflight := row(mine)
	require.Equal(t, 1, inflight, "the request held back keeps no reservation of the endpoint's bucket")

	g.Observe(ctx, b, &api.RateLimit{Limit: 10, Remaining: 4, Reset: reset}, nil)
	require.NoError(t, g.Flush(ctx))
	remaining, inflight := row(mine)
	require.Equal(t, [2]int{4, 0}, [2]int{remaining, inflight})
	remaining, inflight = row(account)
	require.Equal(t, [2]int{1, 0}, [2]int{remaining, inflight}, "an answer without the account's headers only ends its reservation")
}

// The requests of the governor tests below: endpoint, for user.
const endpoint, user = "GET /x", "u1"

// keptAnswersGovernor is a governor over a new database's windows, at a
// fixed time, whose answers are recorded by the next reservation or Flush
// only.
func keptAnswersGovernor(t *testing.T) (*pgxpool.Pool, *api.Governor, time.Time) {
	t.Helper()
	pool := migratedPool(t)
	g := api.NewGovernor(api.PGStore{Pool: pool})
	g.ObserveDelay = time.Hour
	now := time.Now()
	g.Now = func() time.Time { return now }
	return pool, g, now
}

// An answer that leaves its windows room to spare is recorded with the
// next reservation, in its round trip (until then its request still counts
// in flight); one that leaves little room is recorded at once; what no
// reservation carried is recorded by Flush, or by a timer.
func TestPGGovernorRecordsAnAnswerWithRoomToSpareWithTheNextReservation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, g, now := keptAnswersGovernor(t)
	mine, account := endpoint+"|user:"+user, endpoint+"|user:"+user+"|account:a1"
	type state struct{ Remaining, Inflight int }
	row := func(bucket string) state {
		t.Helper()
		var st state
		require.NoError(t, pool.QueryRow(ctx, `SELECT remaining, inflight FROM api_rate_limits WHERE bucket = $1`, bucket).
			Scan(&st.Remaining, &st.Inflight))
		return st
	}
	reset := now.Add(15 * time.Minute)
	answer := func(b []string, remaining int) { // the account's share keeps 40 of 50
		g.Observe(ctx, b, &api.RateLimit{Limit: 100, Remaining: remaining, Reset: reset}, &api.RateLimit{Limit: 50, Remaining: 40, Reset: reset})
	}

	b, err := g.Acquire(ctx, endpoint, user, "a1")
	require.NoError(t, err)
	answer(b, 90)
	require.Equal(t, state{1, 1}, row(mine), "kept: the probe still counts in flight")
	b, err = g.Acquire(ctx, endpoint, user, "a1")
	require.NoError(t, err)
	require.Equal(t, state{90, 1}, row(mine), "recorded with the next reservation, which counts in flight")
	require.Equal(t, state{40, 1}, row(account))

	answer(b, 9)
	require.Equal(t, state{9, 0}, row(mine), "an answer leaving under a tenth of the limit is recorded at once")

	b, err = g.Acquire(ctx, endpoint, user, "a1")
	require.NoError(t, err)
	answer(b, 80)
	require.Equal(t, state{9, 1}, row(mine))
	require.NoError(t, g.Flush(ctx))
	require.Equal(t, state{9, 0}, row(mine), "Flush records it (the lower remaining of one window is kept)")
	require.Equal(t, state{40, 0}, row(account))

	g.ObserveDelay = 10 * time.Millisecond
	b, err = g.Acquire(ctx, endpoint, user, "a1")
	require.NoError(t, err)
	require.Equal(t, 1, row(mine).Inflight)
	answer(b, 70)
	require.Eventually(t, func() bool { return row(mine).Inflight == 0 }, 5*time.Second, 5*time.Millisecond,
		"the timer records what no reservation carried")
}

func TestPagesThatReuseBodiesHandEachPageWhole(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.CampaignsPerAccount = 45 })
	acct := firstAccount(t, f)
	c := newClient(t, f.config())
	read := func(reuse bool) []string {
		lr := campaigns(acct)
		lr.Count, lr.UncheckedRecords, lr.ReuseBody = 10, true, reuse
		var got []string
		for page, err := range api.Pages[json.RawMessage](context.Background(), c, lr) {
			require.NoError(t, err)
			for _, raw := range page.Raw {
				got = append(got, string(raw)) // a copy: the bytes go back after the loop body
			}
		}
		return got
	}
	fresh := read(false)
	truth := f.srv.AdsTruth().Accounts[acct]["campaigns"]
	require.Equal(t, truth.Live+truth.Deleted, len(fresh))
	// Page after page, the same buffers: every record as a fresh read has it.
	for range 2 {
		require.True(t, slices.Equal(fresh, read(true)), "records read into kept buffers differ from a fresh read's")
	}
}

// A reservation made ahead in a caller's batch is taken by the first
// request of its endpoint, user and account whose context carries it, and
// by no other: that request reserves nothing more. One no request took is
// given back by Release; one whose batch was never sent hands its
// observations back to the next reservation.
func TestPGGovernorReservationMadeAheadIsTakenByItsRequestOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, g, now := keptAnswersGovernor(t)
	mine, account := endpoint+"|user:"+user, endpoint+"|user:"+user+"|account:a1"
	inflight := func(bucket string) (n int) {
		t.Helper()
		require.NoError(t, pool.QueryRow(ctx, `SELECT inflight FROM api_rate_limits WHERE bucket = $1`, bucket).Scan(&n))
		return n
	}
	reset := now.Add(15 * time.Minute)
	answer := func(b []string) {
		g.Observe(ctx, b, &api.RateLimit{Limit: 100, Remaining: 90, Reset: reset}, &api.RateLimit{Limit: 50, Remaining: 40, Reset: reset})
	}
	b, err := g.Acquire(ctx, endpoint, user, "a1")
	require.NoError(t, err)
	answer(b)
	require.NoError(t, g.Flush(ctx))
	require.Zero(t, inflight(mine))

	require.Nil(t, api.NewGovernor(api.NewMemoryStore()).QueueReservation(&pgx.Batch{}, endpoint, user, "a1"),
		"a store outside Postgres reserves as requests are sent")

	// Reserved in the batch, with the answer kept for the next reservation.
	b, err = g.Acquire(ctx, endpoint, user, "a1")
	require.NoError(t, err)
	answer(b)
	require.Equal(t, 1, inflight(mine), "the answer is kept")
	batch := &pgx.Batch{}
	r := g.QueueReservation(batch, endpoint, user, "a1")
	require.NotNil(t, r)
	require.NoError(t, pool.SendBatch(ctx, batch).Close())
	require.Equal(t, 1, inflight(mine), "the kept answer ended one request, the reservation began one")
	require.Equal(t, 1, inflight(account))

	withR := api.WithReservation(ctx, r)
	other, err := g.Acquire(withR, endpoint, user, "a2")
	require.NoError(t, err)
	require.Equal(t, []string{mine, endpoint + "|user:" + user + "|account:a2"}, other)
	require.Equal(t, 2, inflight(mine), "another account's request reserves its own")
	taken, err := g.Acquire(withR, endpoint, user, "a1")
	require.NoError(t, err)
	require.Equal(t, []string{mine, account}, taken)
	require.Equal(t, 2, inflight(mine), "the matching request took the reservation")
	require.Equal(t, 1, inflight(account))
	again, err := g.Acquire(withR, endpoint, user, "a1")
	require.NoError(t, err)
	require.Equal(t, 2, inflight(account), "a reservation is taken once")
	r.Release(ctx)
	require.Equal(t, 2, inflight(account), "a taken reservation is not given back")
	for _, done := range [][]string{other, taken, again} {
		answer(done)
	}
	require.NoError(t, g.Flush(ctx))
	require.Zero(t, inflight(mine))

	// Not taken: given back.
	batch = &pgx.Batch{}
	r = g.QueueReservation(batch, endpoint, user, "a1")
	require.NoError(t, pool.SendBatch(ctx, batch).Close())
	require.Equal(t, 1, inflight(account))
	r.Release(ctx)
	require.Zero(t, inflight(account))
	require.Zero(t, inflight(mine))

	// Never sent: the kept answer goes to the next reservation.
	b, err = g.Acquire(ctx, endpoint, user, "a1")
	require.NoError(t, err)
	answer(b)
	r = g.QueueReservation(&pgx.Batch{}, endpoint, user, "a1")
	r.Unsent()
	require.Equal(t, 1, inflight(mine))
	require.NoError(t, g.Flush(ctx))
	require.Zero(t, inflight(mine), "the answer handed back is recorded")
}
