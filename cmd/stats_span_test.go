package adsynccmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/stretchr/testify/require"
)

// activeFamily is the fake's counter of active entities requests.
const activeFamily = "GET /12/stats/accounts/{account_id}/active_entities"

// fakeAccount is an account record as `adsync api GET /12/accounts` prints it.
type fakeAccount struct {
	ID        string    `json:"id"`
	Timezone  string    `json:"timezone"`
	CreatedAt time.Time `json:"created_at"`
}

// fakeAccounts lists the fake's accounts through the command line.
func (b *serviceBundle) fakeAccounts(t *testing.T) []fakeAccount {
	t.Helper()
	r := b.run(t, "api", "GET", "/12/accounts")
	require.Equal(t, 0, r.code, r.stderr)
	var rec struct {
		Data []fakeAccount `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rec))
	require.NotEmpty(t, rec.Data)
	return rec.Data
}

// withConfig returns the bundle with extra appended to its configuration.
func (b *serviceBundle) withConfig(t *testing.T, extra string) *serviceBundle {
	t.Helper()
	conf, err := os.ReadFile(b.conf)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(file, append(conf, extra...), 0o600))
	withFile := *b
	withFile.conf = file
	return &withFile
}

// accountDays is the account-days figure of a stats report.
func accountDays(t *testing.T, stdout string) int {
	t.Helper()
	m := regexp.MustCompile(`accounts \d+, account-days (\d+),`).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return n
}

// runningFrom starts the fake's clock at now and lets it run, so the
// asynchronous jobs of spans over 7 days finish.
func runningFrom(now time.Time) func(*fixtures.Options) {
	return func(o *fixtures.Options) { o.Now = fixtures.RunningFrom(now) }
}

// localDate is the calendar date of t in zone, as a UTC midnight.
func localDate(t *testing.T, at time.Time, zone string) time.Time {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	require.NoError(t, err)
	y, m, d := at.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// A span from 1900 is pulled from each account's first day, said in one
// line per account, and costs one active entities request per account and
// entity type (the fake's accounts are 30 to 60 days old, under the 90 days
// one request covers), not one per 90 days since 1900 (about 510 each).
func TestStatsSyncClampsASpanFrom1900ToEachAccountsCreation(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)
	b := setupService(t, bundleOptions{ownerToken: true, now: now, fake: runningFrom(now)})
	accounts := b.fakeAccounts(t)
	r := b.run(t, "stats", "sync", "--start", "1900-01-01", "--entities", "CAMPAIGN", "--wait")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, " succeeded\n")

	most := 0
	for _, acc := range accounts {
		created, today := localDate(t, acc.CreatedAt, acc.Timezone), localDate(t, now, acc.Timezone)
		// The first day is the creation's, or the day before when the
		// account may have been in another zone then (on or before its
		// zone switch, whose old zone the service does not show).
		first := fmt.Sprintf("(%s|%s)", created.Format(time.DateOnly), created.AddDate(0, 0, -1).Format(time.DateOnly))
		require.Regexp(t, fmt.Sprintf(`(?m)^stats sync: account %s: span clamped to %s\.\.%s in %s \(it was created %s\)$`,
			acc.ID, first, today.Format(time.DateOnly), regexp.QuoteMeta(acc.Timezone), acc.CreatedAt.UTC().Format(time.RFC3339)), r.stdout)
		most += int(today.Sub(created)/(24*time.Hour)) + 2
	}
	days := accountDays(t, r.stdout)
	require.LessOrEqual(t, days, most, "only the days since each account's creation")
	require.Greater(t, days, most-2*len(accounts))
	require.Equal(t, len(accounts), b.srv.Stats().Family(activeFamily).Requests,
		"one active entities request per account and entity type")
}

// An end in 2100 is today in each account's zone: at the pinned instant
// 10 March in New York and Berlin, already 11 March in Tokyo.
func TestStatsSyncClampsAnEndIn2100ToToday(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)
	b := setupService(t, bundleOptions{ownerToken: true, now: now, fake: runningFrom(now)})
	accounts := b.fakeAccounts(t)
	r := b.run(t, "stats", "sync", "--start", "2026-03-01", "--end", "2100-01-01", "--entities", "CAMPAIGN", "--wait")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	want := map[string]string{"America/New_York": "2026-03-10", "Europe/Berlin": "2026-03-10", "Asia/Tokyo": "2026-03-11"}
	for _, acc := range accounts {
		require.Contains(t, r.stdout, fmt.Sprintf("stats sync: account %s: span clamped to 2026-03-01..%s in %s (later days have no data yet)\n",
			acc.ID, want[acc.Timezone], acc.Timezone))
	}
	require.Len(t, accounts, 3)
	require.Equal(t, 10+10+11, accountDays(t, r.stdout), "1 March through today in each zone")
	require.Equal(t, len(accounts), b.srv.Stats().Family(activeFamily).Requests,
		"one active entities request per account and entity type")
}

// A request that needs more active entities requests than
// stats.max_budget_share of the endpoint's 15-minute window is refused
// before anything is recorded or queued, with the figure; raising the share
// lets it through. The fake's data is anchored in 2000, so its accounts are
// over 26 years old on the pinned day: clamped to their lives, the default
// entity types of the three accounts still need over 1,200 requests.
func TestStatsSyncRefusesARunOverItsBudgetShareBeforeRecordingIt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)
	b := setupService(t, bundleOptions{ownerToken: true, now: now, fake: func(o *fixtures.Options) {
		o.Anchor = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}})
	r := b.run(t, "stats", "sync", "--start", "1900-01-01", "--end", "2100-01-01")
	require.Equal(t, 2, r.code, r.stdout+r.stderr)
	m := regexp.MustCompile(`stats sync: this run needs at least (\d+) active entities requests \(3 accounts x 4 entity types, ` +
		`one for each 90 days of an account's span\); stats\.max_budget_share 0\.5 allows 1000 of the 2000 the endpoint takes ` +
		`in a 15-minute window: pull a shorter span, fewer accounts or fewer entity types, or raise stats\.max_budget_share`).
		FindStringSubmatch(r.stderr)
	require.NotNil(t, m, r.stderr)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	// Each account's life is 26 to 26.3 years: 106 or 107 requests per
	// entity type (the span widened by a day on each side for the zones).
	require.GreaterOrEqual(t, n, 3*4*106)
	require.LessOrEqual(t, n, 3*4*107)
	require.Zero(t, b.srv.Stats().Family(activeFamily).Requests, "nothing asked of the service")
	pool := b.pool(t)
	var runs, queued int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM sync_runs`).Scan(&runs))
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job`).Scan(&queued))
	require.Zero(t, runs, "no run recorded")
	require.Zero(t, queued, "no job queued")

	r = b.withConfig(t, "stats:\n  max_budget_share: 0.7\n").run(t, "stats", "sync", "--start", "1900-01-01", "--end", "2100-01-01")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Regexp(t, `stats run \d+ queued\n$`, r.stdout)
}
