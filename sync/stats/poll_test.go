package stats_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

// countCalls makes b's runner count its job calls.
func (b *testBundle) countCalls(t *testing.T) *jobCalls {
	t.Helper()
	calls := &jobCalls{next: http.DefaultTransport}
	cfg := b.fake.Config(b.pool)
	cfg.HTTPClient = &http.Client{Transport: calls}
	c, err := api.NewClient(cfg)
	require.NoError(t, err)
	b.runner.Client = c
	return calls
}

func TestAnAccountsOpenJobsArePolledTogetherByTheirExpectedTime(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 4 * time.Second})
	a := b.firstAccount(t)
	calls := b.countCalls(t)

	// Nothing observed yet: the first look is after pollMin (2 s), then a
	// quarter of the age (at least 2 s): two rounds for every job.
	req := b.twentyDays(a)
	req.Entities = stats.DefaultEntities
	rep, ids := b.asyncRun(t, req)
	require.Greater(t, rep.Jobs, 2, "several jobs are open at once")
	runLikeRiver(t, b.runner, b.fake.Srv, ids)
	b.requireTruth(t, b.twentyDaySpan, a.ID)
	require.EqualValues(t, 2, calls.polls.Load(), "one listing per round for all %d jobs", rep.Jobs)
	require.EqualValues(t, rep.Jobs, calls.posts.Load())

	// The jobs took 4 s: the next run's jobs are looked at once, then.
	calls.polls.Store(0)
	list := b.fake.Srv.Stats().Family("GET /12/stats/jobs/accounts/{account_id}").Requests
	rep, ids = b.asyncRun(t, req)
	runLikeRiver(t, b.runner, b.fake.Srv, ids)
	b.requireTruth(t, b.twentyDaySpan, a.ID)
	require.EqualValues(t, 1, calls.polls.Load(), "one listing answered all %d jobs", rep.Jobs)
	// The fake's own count: the one listing every POST's intent shares,
	// and the one poll.
	require.Equal(t, list+1+1, b.fake.Srv.Stats().Family("GET /12/stats/jobs/accounts/{account_id}").Requests)
}

func TestMoreThanTwoHundredOpenJobsArePolledTwoHundredARequest(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{}) // jobs end at once, so the account's 100 slots never fill
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	ctx := context.Background()
	var raw []byte
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT query FROM stats_jobs WHERE id = $1`, ids[0]).Scan(&raw))
	q := stats.QueryFromJSON(t, raw)
	// 250 rows waiting on jobs of their parameters (rows of earlier runs a
	// worker left waiting, say).
	for range 250 {
		sj, err := stats.CreateJob(ctx, b.runner.Client, q, b.fake.Srv.Now())
		require.NoError(t, err)
		_, err = b.pool.Exec(ctx, `INSERT INTO stats_jobs (run_id, account_id, query, state, service_job_id, intent_at)
            VALUES (0, $1, $2, 'waiting', $3, $4)`, a.ID, raw, sj.ID, b.fake.Srv.Now())
		require.NoError(t, err)
	}
	calls := b.countCalls(t)
	var waiting int64
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT min(id) FROM stats_jobs WHERE run_id = 0`).Scan(&waiting))
	_, err := b.runner.Advance(ctx, waiting)
	require.NoError(t, err)
	require.EqualValues(t, 2, calls.polls.Load(), "ceil(250/200) listings")
	var known int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM stats_jobs WHERE run_id = 0 AND (file_url IS NOT NULL OR state = 'stored')`).
		Scan(&known))
	require.Equal(t, 250, known, "every open job's answer is on its row")
}

func TestAFileFoundByAnotherRowsPollThatExpiresIsAskedForAgain(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second, FileTTL: time.Minute})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	require.GreaterOrEqual(t, len(ids), 2)
	ctx := context.Background()
	for _, id := range ids[:2] {
		step, err := b.runner.Advance(ctx, id)
		require.NoError(t, err)
		require.False(t, step.Done)
	}
	first := b.serviceJobOf(t, ids[1])
	b.tick(3 * time.Second)
	step, err := b.runner.Advance(ctx, ids[0]) // polls for both, stores its own
	require.NoError(t, err)
	require.True(t, step.Done)
	var url *string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT file_url FROM stats_jobs WHERE id = $1`, ids[1]).Scan(&url))
	require.NotNil(t, url, "the other row's SUCCESS is on its row")

	b.tick(2 * time.Minute) // the file expired before that row's attempt
	runLikeRiver(t, b.runner, b.fake.Srv, ids)
	b.requireCampaignTruth(t, a)
	require.NotEqual(t, first, b.serviceJobOf(t, ids[1]), "the expired job was asked for again")
	var past []string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT past_job_ids FROM stats_jobs WHERE id = $1`, ids[1]).Scan(&past))
	require.Equal(t, []string{first}, past)
}

func TestAJobThatFailedSeenByAnotherRowsPollIsCreatedAgain(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	b.fake.Srv.FailNextStatsJobs(1)
	runLikeRiver(t, b.runner, b.fake.Srv, ids)
	b.requireCampaignTruth(t, a)
	var failures int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT sum(failures) FROM stats_jobs`).Scan(&failures))
	require.Equal(t, 1, failures)
	require.Len(t, b.serviceJobs(t, a.ID), len(ids)+1)
}

func (b *testBundle) twentyDaySpan(a stats.Account) stats.Span {
	return stats.Span{Start: a.LocalDate(b.now).AddDate(0, 0, -20), End: a.LocalDate(b.now).AddDate(0, 0, 1)}
}

// heldPolls holds the first poll (a job listing naming job_ids) of b's
// runner until release is called, saying on arrived when it came; later
// polls pass.
type heldPolls struct {
	next    http.RoundTripper
	held    atomic.Bool
	arrived chan struct{}
	gate    chan struct{}
	once    sync.Once
}

func (h *heldPolls) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/stats/jobs/accounts/") &&
		req.URL.Query().Has("job_ids") && h.held.CompareAndSwap(false, true) {
		close(h.arrived)
		<-h.gate
	}
	return h.next.RoundTrip(req)
}

func (h *heldPolls) release() { h.once.Do(func() { close(h.gate) }) }

// holdFirstPoll makes b's runner's first poll wait for release (called at
// the end of the test at the latest).
func (b *testBundle) holdFirstPoll(t *testing.T) *heldPolls {
	t.Helper()
	h := &heldPolls{next: http.DefaultTransport, arrived: make(chan struct{}), gate: make(chan struct{})}
	t.Cleanup(h.release)
	cfg := b.fake.Config(b.pool)
	cfg.HTTPClient = &http.Client{Transport: h}
	c, err := api.NewClient(cfg)
	require.NoError(t, err)
	b.runner.Client = c
	return h
}

// startWaiting advances each row once: it creates its service job and
// waits for it.
func (b *testBundle) startWaiting(t *testing.T, ids []int64) {
	t.Helper()
	for _, id := range ids {
		step, err := b.runner.Advance(context.Background(), id)
		require.NoError(t, err)
		require.False(t, step.Done)
		require.Equal(t, stats.StateWaiting, b.state(t, id))
	}
}

func (b *testBundle) state(t *testing.T, id int64) string {
	t.Helper()
	var s string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT state FROM stats_jobs WHERE id = $1`, id).Scan(&s))
	return s
}

// patience bounds a wait for what takes well under a second on a quiet
// machine: only a hang takes longer, while a machine loaded by other test
// processes may take a minute. A wait ends as soon as its event comes.
const patience = 5 * time.Minute

// pollHeldAtTheService advances row id in the background until its poll
// round's listing reaches the service, where it is held: released by
// held.release; done says how the row's Advance ended.
func (b *testBundle) pollHeldAtTheService(t *testing.T, id int64) (held *heldPolls, done <-chan error) {
	t.Helper()
	held = b.holdFirstPoll(t)
	done = b.advanceAsync(id)
	select {
	case <-held.arrived:
	case err := <-done:
		t.Fatalf("the row did not poll: %v", err)
	case <-time.After(patience):
		t.Fatal("no poll reached the service in five minutes")
	}
	return held, done
}

// advanceAsync runs Advance(id) on its own goroutine.
func (b *testBundle) advanceAsync(id int64) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := b.runner.Advance(context.Background(), id)
		done <- err
	}()
	return done
}

// TestNoTransactionOrLockIsHeldWhileAPollWaitsForTheService holds a poll
// round's listing at the service and looks, from another connection, at
// what the poller holds meanwhile: no open transaction, no advisory lock
// (under network latency either would hold a connection and the account's
// lock for as long as the service takes).
func TestNoTransactionOrLockIsHeldWhileAPollWaitsForTheService(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	b.startWaiting(t, ids)
	b.tick(3 * time.Second) // due, and done at the service
	held, done := b.pollHeldAtTheService(t, ids[0])
	ctx := context.Background()
	var xacts, locks int
	var states []string
	err := b.pool.QueryRow(ctx, `SELECT count(*), coalesce(array_agg(state), '{}') FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`).Scan(&xacts, &states)
	if err == nil {
		err = b.pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&locks)
	}
	held.release()
	require.NoError(t, err)
	require.NoError(t, <-done)
	require.Zero(t, xacts, "transactions open while the service answers: %v", states)
	require.Zero(t, locks, "advisory locks held while the service answers")

	runLikeRiver(t, b.runner, b.fake.Srv, ids)
	b.requireCampaignTruth(t, a)
}

// TestTwoRoundsAnsweringTheSameJobRecordItOnce lets a second round poll
// the account while the first one's listing is held past its lease: the
// second does not wait for the first, and the first, answered last, finds
// the rows recorded and leaves them: a FAILED job counts once.
func TestTwoRoundsAnsweringTheSameJobRecordItOnce(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	require.GreaterOrEqual(t, len(ids), 2)
	b.fake.Srv.FailNextStatsJobs(1) // the first row's job
	b.startWaiting(t, ids)
	failed := b.serviceJobOf(t, ids[0])
	b.tick(3 * time.Second)
	held, first := b.pollHeldAtTheService(t, ids[0])
	b.tick(time.Minute) // past the first round's lease
	second := b.advanceAsync(ids[1])
	var err error
	select {
	case err = <-second:
	case <-time.After(patience):
		err = errors.New("the second round waited for the first")
	}
	held.release()
	require.NoError(t, err)
	require.Equal(t, stats.StateStored, b.state(t, ids[1]), "the second round stored its own row's file")
	require.NoError(t, <-first)

	var failures int
	var past []string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT failures, past_job_ids FROM stats_jobs WHERE id = $1`, ids[0]).
		Scan(&failures, &past))
	require.Equal(t, 1, failures, "the FAILED job counted once")
	require.Equal(t, []string{failed}, past)
	runLikeRiver(t, b.runner, b.fake.Srv, ids)
	b.requireCampaignTruth(t, a)
	require.Len(t, b.serviceJobs(t, a.ID), len(ids)+1, "the failed job asked for again, once")
}

// TestARowWakingDuringAnotherRowsRoundLooksAgainSoonAndFindsItsAnswer
// wakes a row while another row's round of the account is at the service:
// the row waits about a second, not the round's whole lease (which bounds
// only a round whose worker died), and once the round answers, the row
// stores its file without a listing of its own.
func TestARowWakingDuringAnotherRowsRoundLooksAgainSoonAndFindsItsAnswer(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	require.GreaterOrEqual(t, len(ids), 2)
	b.startWaiting(t, ids)
	b.tick(3 * time.Second) // due, and done at the service
	held, first := b.pollHeldAtTheService(t, ids[0])
	ctx := context.Background()
	step, err := b.runner.Advance(ctx, ids[1])
	if err != nil || step.Done || step.Wait > time.Second {
		held.release()
	}
	require.NoError(t, err)
	require.False(t, step.Done, "the row's answer is still at the service")
	require.Positive(t, step.Wait)
	require.LessOrEqual(t, step.Wait, time.Second, "a row being polled by another round looks again within a second")
	held.release()
	require.NoError(t, <-first)

	calls := b.countCalls(t)
	step, err = b.runner.Advance(ctx, ids[1])
	require.NoError(t, err)
	require.True(t, step.Done, "the round's answer was on the row")
	require.Zero(t, calls.polls.Load(), "no listing of its own")
	runLikeRiver(t, b.runner, b.fake.Srv, ids)
	b.requireCampaignTruth(t, a)
}
