package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/sync/ads"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// kills is how many times each scenario kills a worker mid-flight.
const kills = 10

// killWorkersWhile starts workers and SIGKILLs each at a random point while
// busy reports work left, kills times; then one last worker finishes the
// work and stops cleanly on SIGTERM.
func (e *env) killWorkersWhile(t *testing.T, rng *rand.Rand, busy func() bool, finished func() bool) int {
	t.Helper()
	killed := 0
	for killed < kills && busy() {
		w := e.worker(t)
		// Kill it at a random point once it works on a job: on a loaded
		// machine a worker may take longer to start than the random delay.
		e.waitHoldsAJob(t, w, 20*time.Second)
		time.Sleep(time.Duration(rng.IntN(600)) * time.Millisecond)
		if !busy() {
			w.stop(t)
			break
		}
		w.kill()
		require.Equal(t, -9, w.status, "killed by SIGKILL")
		killed++
	}
	if finished() {
		return killed // a worker stopped as it starts may not yet handle SIGTERM
	}
	w := e.worker(t)
	deadline := time.Now().Add(patience)
	for !finished() {
		if time.Now().After(deadline) {
			e.dumpJobs(t)
			t.Fatalf("the work did not finish after %d kills; last worker: %s", killed, w.output())
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.stop(t)
	return killed
}

// waitHoldsAJob waits until worker w runs a job (or d passes, or the work
// runs out).
func (e *env) waitHoldsAJob(t *testing.T, w *proc, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		var holds bool
		require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM river_job j JOIN adsync_workers w
			ON j.attempted_by[array_length(j.attempted_by, 1)] = w.client_id WHERE j.state = 'running' AND w.pid = $1)`,
			w.cmd.Process.Pid).Scan(&holds))
		if holds {
			return
		}
		select {
		case <-w.done:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestUploadKilledAtRandomPointsLosesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil, "queues: {audience: 2}\n")
	// 40,000 users: 16 batches of 2,500; each request is slowed down.
	file := filepath.Join(e.dir, "users.csv")
	var b strings.Builder
	b.WriteString("email,phone_number\n")
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&b, "User.%d@Example.com,+1 415 555 %04d\n", i, i%10000)
		if i%997 == 0 {
			b.WriteString("broken-row-without-at,12\n")
		}
	}
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o600))
	e.srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts/*/custom_audiences/*/users", Kind: fixtures.FaultLatency, LatencyMS: 600})
	acct := e.firstAccount(t)
	code, out := e.run(t, "audience", "upload", "--account", acct, "--create", "crash test", "--in", file)
	require.Equal(t, 0, code, out)
	m := regexp.MustCompile(`upload (\d+):.* in (\d+) batches`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	upload := m[1]
	aud := regexp.MustCompile(`created custom audience (\S+)`).FindStringSubmatch(out)[1]

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	pending := func() bool {
		var open int
		require.NoError(t, e.pool.QueryRow(context.Background(),
			`SELECT count(*) FROM audience_batches WHERE upload_id = $1 AND state NOT IN ('done', 'failed')`, upload).Scan(&open))
		return open > 0
	}
	killed := e.killWorkersWhile(t, rng, pending, func() bool { return !pending() })
	require.Equal(t, kills, killed, "every kill landed while batches were being sent")

	// Every valid member is present in the audience, and nothing else.
	norm, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	want := map[string]bool{}
	for i := 0; i < 40000; i++ {
		h, _, err := norm.Hash(hashing.TypeEmail, fmt.Sprintf("User.%d@Example.com", i))
		require.NoError(t, err)
		want[h] = true
	}
	got := e.srv.AudienceMembers(aud, "email")
	require.Len(t, got, len(want))
	for _, h := range got {
		require.True(t, want[h])
	}
	require.Len(t, e.srv.AudienceMembers(aud, "phone_number"), 10000)

	// No batch was sent more often than its attempts and retries explain.
	sends := e.srv.Stats().AudienceBodies
	rows, err := e.pool.Query(context.Background(), `SELECT seq, body, attempts, retries, state FROM audience_batches WHERE upload_id = $1`, upload)
	require.NoError(t, err)
	defer rows.Close()
	batches := 0
	for rows.Next() {
		var seq, attempts, retries int
		var body []byte
		var state string
		require.NoError(t, rows.Scan(&seq, &body, &attempts, &retries, &state))
		sum := sha256.Sum256(body)
		n := sends[hex.EncodeToString(sum[:])]
		require.Equal(t, "done", state, "batch %d", seq)
		require.GreaterOrEqual(t, n, 1, "batch %d was sent", seq)
		require.LessOrEqual(t, n, attempts+retries, "batch %d: %d sends, %d attempts, %d retries", seq, n, attempts, retries)
		batches++
	}
	require.Equal(t, m[2], fmt.Sprint(batches))
}

// firstAccount is the fake's first live account.
func (e *env) firstAccount(t *testing.T) string {
	t.Helper()
	best := ""
	for id, per := range e.srv.AdsTruth().Accounts {
		if len(per["campaigns"].IDs) > 0 && (best == "" || id < best) {
			best = id
		}
	}
	require.NotEmpty(t, best)
	return best
}

// dumpJobs logs the jobs that did not complete, for diagnosis.
func (e *env) dumpJobs(t *testing.T) {
	rows, err := e.pool.Query(context.Background(), `SELECT id, kind, state::text, attempt, max_attempts, attempted_by::text,
		metadata::text, coalesce(errors[array_length(errors, 1)]->>'error', '') FROM river_job WHERE state <> 'completed' ORDER BY id`)
	if err != nil {
		t.Log(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var kind, state, by, md, last string
		var attempt, max int
		_ = rows.Scan(&id, &kind, &state, &attempt, &max, &by, &md, &last)
		t.Logf("job %d %s %s attempt %d/%d by %s meta %.200s last error %q", id, kind, state, attempt, max, by, md, last)
	}
}

// contentStates reads each row's content state (doc_hash, deleted) of
// table, per account and id.
func contentStates(t *testing.T, pool *pgxpool.Pool, table string) map[string]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT account_id || '/' || id, doc_hash || ' ' || deleted FROM `+table)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var kv [2]string
		return kv, r.Scan(&kv[0], &kv[1])
	})
	require.NoError(t, err)
	m := map[string]string{}
	for _, kv := range out {
		m[kv[0]] = kv[1]
	}
	return m
}

// TestSyncKilledAtRandomPointsLosesNothingAndKeepsEveryHistoryAgreeing
// kills workers at random points of two full syncs, kills times each. The
// two series exercise different writes: the first sync starts from empty
// tables (every row an insert, every history a first version), the second
// follows changes at the service (updates, additions and tombstones, each
// closing a version and opening another). After each, every entity equals
// the fake's; after the second, each history holds one version per state
// the two syncs saw, however often a page was fetched and written again.
func TestSyncKilledAtRandomPointsLosesNothingAndKeepsEveryHistoryAgreeing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *fixtures.Options) {
		o.Accounts, o.CampaignsPerAccount, o.CardsPerAccount, o.LineItemsPerCampaign = 3, 160, 60, 2
	}, "sync: {page_size: 20}\nqueues: {sync: 3}\n")
	// Slow the service down so each sync takes long enough to be killed many times.
	e.srv.AddFault(fixtures.FaultRule{Path: "/ads/**", Method: "GET", Kind: fixtures.FaultLatency, LatencyMS: 40})
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	killedSync := func(what string) string {
		t.Helper()
		id := e.queueSync(t, "--full")
		running := func() bool { return e.outcome(t, id) == "running" }
		killed := e.killWorkersWhile(t, rng, running, func() bool { return !running() })
		require.Equal(t, kills, killed, "%s: every kill landed while the sync was running", what)
		require.Equal(t, "succeeded", e.outcome(t, id), what)
		return id
	}

	killedSync("the first sync")
	e.requireEntitiesMatchTruth(t)
	var rescued int
	require.NoError(t, e.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE (metadata->>'adsync_rescues') IS NOT NULL`).Scan(&rescued))
	require.Positive(t, rescued, "killed workers' jobs were handed back")

	tables := []string{"campaigns", "cards", "line_items"}
	before := map[string]map[string]string{}
	for _, table := range tables {
		before[table] = contentStates(t, e.pool, table)
		_, err := e.srv.AdsMutate(fixtures.AdsMutation{Kind: table, Add: 10, Change: 60, Delete: 10})
		require.NoError(t, err)
	}
	// The second sync writes the changes page by page, killed at random
	// points between and during them.
	killedSync("the second sync")
	e.requireEntitiesMatchTruth(t)

	ctx := context.Background()
	for _, table := range tables {
		en, ok := ads.Lookup(table)
		require.True(t, ok)
		require.NoError(t, ads.CheckHistory(ctx, e.pool, en))
		// One version per state: the first sync's, then the second's
		// where it differs; the current one is the row.
		want := map[string][]string{}
		for key, s := range contentStates(t, e.pool, table) {
			if b, ok := before[table][key]; ok && b != s {
				want[key] = append(want[key], b)
			}
			want[key] = append(want[key], s)
		}
		rows, err := e.pool.Query(ctx, `SELECT account_id || '/' || id, doc_hash || ' ' || deleted FROM `+en.History()+`
ORDER BY account_id, id, valid_from`)
		require.NoError(t, err)
		got := map[string][]string{}
		for rows.Next() {
			var key, s string
			require.NoError(t, rows.Scan(&key, &s))
			got[key] = append(got[key], s)
		}
		require.NoError(t, rows.Err())
		require.Equal(t, want, got, "%s: its history after two syncs killed %d times each", table, kills)
	}
}
