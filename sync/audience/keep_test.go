package audience_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/stretchr/testify/require"
)

// familyCreateAudience counts the fake's custom audience creates.
const familyCreateAudience = "POST /12/accounts/{account_id}/custom_audiences"

// definition keeps the bundle's audience equal to path.
func (b *bundle) definition(path string) audience.Definition {
	return audience.Definition{Name: "crm-nightly", AccountID: b.account, AudienceID: b.audienceID, Path: path, Mode: audience.ModeReplace}
}

// keep runs o once and sends what it planned, as the worker would.
func (b *bundle) keep(o audience.SyncOptions) (*audience.SyncResult, error) {
	b.t.Helper()
	o.Enqueue = jobs.AudienceEnqueuer(b.inserter())
	o.ClientFor = func(context.Context, string) (*api.Client, error) { return b.deps.API, nil }
	res, err := audience.Sync(context.Background(), b.pool, o)
	if err != nil || !res.Sends() {
		return res, err
	}
	s := &audience.Sender{Pool: b.pool, API: b.deps.API}
	for seq := 1; seq <= res.Plan.Batches; seq++ {
		require.NoError(b.t, s.Send(context.Background(), res.Plan.Upload.ID, seq))
	}
	return res, nil
}

// rewrite replaces path's content at once, as an export job renaming its
// finished file over the last one does.
func rewrite(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".next")
	require.NoError(t, os.WriteFile(tmp, []byte(content), 0o600))
	require.NoError(t, os.Rename(tmp, path))
}

// runRecord is a sync_runs row as a test reads it.
type runRecord struct {
	Pipeline, Trigger, Outcome, Error string
	Params                            map[string]string
	Counts                            map[string]int64
}

func (b *bundle) run(id int64) runRecord {
	b.t.Helper()
	var r runRecord
	var params, counts []byte
	require.NoError(b.t, b.pool.QueryRow(context.Background(), `SELECT pipeline, trigger, outcome, coalesce(error, ''), params, counts
		FROM sync_runs WHERE id = $1`, id).Scan(&r.Pipeline, &r.Trigger, &r.Outcome, &r.Error, &params, &counts))
	require.NoError(b.t, json.Unmarshal(params, &r.Params))
	require.NoError(b.t, json.Unmarshal(counts, &r.Counts))
	return r
}

func (b *bundle) runCount() int {
	b.t.Helper()
	var n int
	require.NoError(b.t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM sync_runs`).Scan(&n))
	return n
}

// withDevice is content with user i's device id changed: the same user,
// one identifier replaced.
func withDevice(content string, i int) string {
	old := fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)
	return strings.Replace(content, old, fmt.Sprintf("%08x-0000-4000-8000-00000000beef", i), 1)
}

func TestSyncReplaceFollowsTheFileThroughAddsRemovalsAndChangesAndSendsNothingWhenUnchanged(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := b.writeFile("crm.csv", emailsCSV(0, 100))
	o := audience.SyncOptions{Definition: b.definition(path), Trigger: "schedule"}
	res, err := b.keep(o)
	require.NoError(t, err)
	require.Equal(t, expectedSet(t, path), b.membership())
	first := b.run(res.RunID)
	require.Equal(t, runRecord{Pipeline: "audience", Trigger: "schedule", Outcome: "succeeded", Params: first.Params, Counts: first.Counts}, first)
	require.Equal(t, "crm-nightly", first.Params["audience"])
	require.EqualValues(t, 100, first.Counts["adds"])

	// Users 0..2 leave, 100..102 join, user 50 changes its device id: 3
	// users and 7 identifiers change hands, within the default 10%.
	rewrite(t, path, withDevice(emailsCSV(3, 100), 50))
	res, err = b.keep(o)
	require.NoError(t, err)
	require.Equal(t, audience.Summary{Adds: 4, Deletes: 7, Unchanged: 96, Known: 200}, res.Plan.Summary)
	require.Equal(t, expectedSet(t, path), b.membership(), "the fake holds exactly the file")
	require.Equal(t, expectedSet(t, path), b.storedMembers())

	// The same file again: a run that sends nothing.
	sent := len(b.spy.requests())
	res, err = b.keep(o)
	require.NoError(t, err)
	require.False(t, res.Sends())
	require.Len(t, b.spy.requests(), sent, "nothing sent")
	again := b.run(res.RunID)
	require.Equal(t, "succeeded", again.Outcome)
	require.Zero(t, again.Counts["adds"]+again.Counts["deletes"])

	// Back to the first content: sent again, although an earlier upload
	// had the same bytes.
	rewrite(t, path, emailsCSV(0, 100))
	res, err = b.keep(o)
	require.NoError(t, err)
	require.True(t, res.Sends())
	require.Equal(t, expectedSet(t, path), b.membership())
}

func TestSyncRefusesAnEmptiedOrTruncatedSourceRecordingTheFailedRunWithItsPlanAndSendingNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := b.writeFile("crm.csv", emailsCSV(0, 100))
	o := audience.SyncOptions{Definition: b.definition(path), Trigger: "schedule"}
	_, err := b.keep(o)
	require.NoError(t, err)
	members := b.membership()
	sent, uploads := len(b.spy.requests()), 0
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM audience_uploads`).Scan(&uploads))

	for _, tt := range []struct {
		name, content, want string
		counts              map[string]int64
	}{
		{"emptied", "email,device_id\n", "audience crm-nightly: the source has no valid user: a replace would delete every member; nothing was sent " +
			"(plan: add 0 users, delete 200 of 200 known identifiers, 0 users unchanged; 0 rows read, 0 invalid)",
			map[string]int64{"planned_deletes": 200, "known": 200, "unchanged": 0}},
		{"truncated", emailsCSV(0, 50), "audience crm-nightly: replace would delete 100 of 200 known identifiers, more than max_delete 10% (20); nothing was sent " +
			"(plan: add 0 users, delete 100 of 200 known identifiers, 50 users unchanged; 50 rows read, 0 invalid); " +
			"if the source is right, adsync audience sync crm-nightly --force sends it",
			map[string]int64{"planned_deletes": 100, "known": 200, "unchanged": 50}},
	} {
		rewrite(t, path, tt.content)
		// A dry run says the same and records nothing.
		runs := b.runCount()
		_, err := b.keep(audience.SyncOptions{Definition: o.Definition, DryRun: true})
		require.EqualError(t, err, tt.want, tt.name)
		require.Equal(t, runs, b.runCount(), tt.name)

		res, err := b.keep(o)
		var refused *audience.RefusedError
		require.ErrorAs(t, err, &refused, tt.name)
		require.EqualError(t, err, tt.want, tt.name)
		run := b.run(res.RunID)
		require.Equal(t, "failed", run.Outcome, tt.name)
		require.Equal(t, tt.want, run.Error, tt.name)
		for k, v := range tt.counts {
			require.Equal(t, v, run.Counts[k], "%s: %s", tt.name, k)
		}
		require.Equal(t, "crm-nightly", run.Params["audience"], tt.name)
	}
	var after int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM audience_uploads`).Scan(&after))
	require.Equal(t, uploads, after, "no upload recorded")
	require.Len(t, b.spy.requests(), sent, "nothing sent")
	require.Equal(t, members, b.membership(), "the audience keeps every member")

	// A larger max_delete lets the truncated file through.
	o.Definition.MaxDelete = bound.Percent(50)
	_, err = b.keep(o)
	require.NoError(t, err)
	require.Equal(t, expectedSet(t, path), b.membership())
}

func TestSyncCreatesItsAudienceOnceAndKeepsUsingIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := b.writeFile("crm.csv", emailsCSV(0, 10))
	def := b.definition(path)
	def.AudienceID, def.Create = "", "nightly customers"
	creates := func() int { return b.srv.Stats().Families[familyCreateAudience].Requests }

	// A dry run before the first run creates nothing and plans every add.
	res, err := b.keep(audience.SyncOptions{Definition: def, DryRun: true})
	require.NoError(t, err)
	require.Equal(t, audience.Previewed, res.Plan.Outcome)
	require.EqualValues(t, 10, res.Plan.Summary.Adds)
	require.Zero(t, creates())

	res, err = b.keep(audience.SyncOptions{Definition: def})
	require.NoError(t, err)
	require.True(t, res.Created)
	id := res.AudienceID
	require.Equal(t, 1, creates())
	rewrite(t, path, emailsCSV(1, 10))
	res, err = b.keep(audience.SyncOptions{Definition: def})
	require.NoError(t, err)
	require.False(t, res.Created)
	require.Equal(t, id, res.AudienceID)
	require.Equal(t, 1, creates(), "created once")
	b.audienceID = id
	require.Equal(t, expectedSet(t, path), b.membership())
}

// A run stopped after the service created the audience and before adsync
// recorded its id leaves the intent: the next run adopts the audience the
// name holds instead of failing on the taken name or making a second one.
func TestSyncAfterACrashBetweenCreateAndRecordAdoptsTheAudienceItCreated(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	def := b.definition(b.writeFile("crm.csv", emailsCSV(0, 10)))
	def.AudienceID, def.Create = "", "nightly customers"
	_, err := b.pool.Exec(ctx, `INSERT INTO audience_creates (account_id, name) VALUES ($1, $2)`, def.AccountID, def.Create)
	require.NoError(t, err)
	lost, err := audience.CreateAudience(ctx, b.deps.API, def.AccountID, def.Create)
	require.NoError(t, err)

	res, err := b.keep(audience.SyncOptions{Definition: def})
	require.NoError(t, err)
	require.Equal(t, lost, res.AudienceID)
	require.False(t, res.Created)
	id, err := audience.CreatedID(ctx, b.pool, def.AccountID, def.Create)
	require.NoError(t, err)
	require.Equal(t, lost, id, "recorded for the next runs")
	b.audienceID = lost
	require.Len(t, b.membership()["email"], 10)

	// A name taken before adsync meant to create it is someone else's.
	other := def
	other.Name, other.Create = "other", "taken by hand"
	taken, err := audience.CreateAudience(ctx, b.deps.API, def.AccountID, other.Create)
	require.NoError(t, err)
	res, err = b.keep(audience.SyncOptions{Definition: other})
	var te *audience.TakenNameError
	require.ErrorAs(t, err, &te)
	require.Equal(t, taken, te.ExistingID)
	require.ErrorContains(t, err, "keep it with audience: "+taken)
	require.Equal(t, "failed", b.run(res.RunID).Outcome)
	id, err = audience.CreatedID(ctx, b.pool, def.AccountID, other.Create)
	require.NoError(t, err)
	require.Empty(t, id)
	require.Empty(t, b.srv.AudienceMembers(taken, "email"))
}

func TestSyncWaitsWhileAnEarlierUploadToTheAudienceIsStillBeingSent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := b.writeFile("crm.csv", emailsCSV(0, 10))
	o := audience.SyncOptions{Definition: b.definition(path), Enqueue: jobs.AudienceEnqueuer(b.inserter())}
	first, err := audience.Sync(context.Background(), b.pool, o) // planned, not sent
	require.NoError(t, err)
	runs := b.runCount()

	rewrite(t, path, emailsCSV(5, 10))
	for _, dry := range []bool{false, true} {
		o.DryRun = dry
		_, err = audience.Sync(context.Background(), b.pool, o)
		var inFlight *audience.InFlightError
		require.ErrorAs(t, err, &inFlight)
		require.Equal(t, first.Plan.Upload.ID, inFlight.UploadID)
		require.Equal(t, runs, b.runCount(), "not a run")
	}

	// A job that gives up waiting records its run failed, naming the upload.
	o.DryRun, o.Retried = false, func(error) bool { return false }
	res, err := audience.Sync(context.Background(), b.pool, o)
	require.ErrorContains(t, err, fmt.Sprintf("upload %d to audience %s is still being sent", first.Plan.Upload.ID, b.audienceID))
	run := b.run(res.RunID)
	require.Equal(t, "failed", run.Outcome)
	require.Equal(t, err.Error(), run.Error)
}

func TestSyncRecordsOnlyTheLastAttemptsFailureAndNeverTheSourcesPassword(t *testing.T) {
	t.Parallel()
	b := setup(t)
	def := b.definition(filepath.Join(b.dir, "missing.csv"))
	o := audience.SyncOptions{Definition: def, Retried: func(error) bool { return true }}
	runs := b.runCount()
	_, err := b.keep(o)
	require.ErrorContains(t, err, "missing.csv")
	require.Equal(t, runs, b.runCount(), "River tries again: not recorded")

	o.Retried = func(error) bool { return false }
	res, err := b.keep(o)
	require.ErrorContains(t, err, "missing.csv")
	run := b.run(res.RunID)
	require.Equal(t, "failed", run.Outcome)
	require.Contains(t, run.Error, "audience crm-nightly: ")
	require.Contains(t, run.Error, "missing.csv")

	// Whatever a query source's database answers, its password is neither
	// recorded nor returned.
	def.Path, def.Query = "", "SELECT email FROM customers"
	def.SourceURL = "postgres://reader:s3cret-pw@127.0.0.1:1/warehouse?sslmode=disable"
	res, err = b.keep(audience.SyncOptions{Definition: def})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "s3cret-pw")
	var row string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT row_to_json(r)::text FROM sync_runs r WHERE id = $1`, res.RunID).Scan(&row))
	require.Contains(t, row, `"outcome":"failed"`)
	require.NotContains(t, row, "s3cret-pw")
}

func TestSyncAddSendsTheSourcesUsersAndRecordsAnUnchangedSourceAsARunThatSentNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := b.writeFile("crm.csv", emailsCSV(0, 10))
	def := b.definition(path)
	def.Mode = audience.ModeAdd
	o := audience.SyncOptions{Definition: def, Trigger: "schedule"}
	first, err := b.keep(o)
	require.NoError(t, err)
	require.Equal(t, expectedSet(t, path), b.membership())

	sent := len(b.spy.requests())
	res, err := b.keep(o)
	require.NoError(t, err)
	require.Equal(t, audience.Skipped, res.Plan.Outcome)
	require.False(t, res.Sends())
	require.Len(t, b.spy.requests(), sent, "nothing sent")
	run := b.run(res.RunID)
	require.Equal(t, []string{"succeeded", "schedule", "crm-nightly", fmt.Sprint(first.Plan.Upload.ID)},
		[]string{run.Outcome, run.Trigger, run.Params["audience"], run.Params["same_as_upload"]})

	// Users who left the source stay: an add deletes nothing.
	rewrite(t, path, emailsCSV(5, 10))
	res, err = b.keep(o)
	require.NoError(t, err)
	require.Equal(t, audience.Summary{Adds: 10}, res.Plan.Summary)
	require.Len(t, b.membership()["email"], 15)
}
