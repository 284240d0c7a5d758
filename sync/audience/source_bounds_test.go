package audience_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/sync/audience"
	"github.com/stretchr/testify/require"
)

// The two query sequences of issue 44 (item 4): the invalid-row bound is
// applied to what a source yields before an earlier upload of the same
// valid users may skip it, and an empty source records nothing for a
// later all-invalid one to be skipped against.
const (
	oneUser          = `SELECT 'a@example.com' AS email`
	oneUserFiftyBad  = `SELECT 'a@example.com' AS email UNION ALL SELECT 'bad' || g FROM generate_series(1, 50) g`
	noValue          = `SELECT NULL::text AS email`
	fiftyBad         = `SELECT 'bad' || g AS email FROM generate_series(1, 50) g`
	fiftyOfFiftyOneW = "50 of 51 rows invalid, more than --max-invalid 1%"
)

// queryOptions are the bundle's PlanOptions for query, run on adsync's own
// database.
func (b *bundle) queryOptions(query string) audience.PlanOptions {
	o := b.options("")
	o.Query = query
	return o
}

// sendAll sends every batch of a plan, as the worker would, so its upload
// is done.
func (b *bundle) sendAll(res *audience.PlanResult) {
	b.t.Helper()
	s := &audience.Sender{Pool: b.pool, API: b.deps.API}
	for seq := 1; seq <= res.Batches; seq++ {
		require.NoError(b.t, s.Send(context.Background(), res.Upload.ID, seq))
	}
	up, err := audience.LoadUpload(context.Background(), b.pool, res.Upload.ID)
	require.NoError(b.t, err)
	require.Equal(b.t, audience.StateDone, up.State)
}

// uploads counts the recorded uploads.
func (b *bundle) uploads() int {
	b.t.Helper()
	var n int
	require.NoError(b.t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM audience_uploads`).Scan(&n))
	return n
}

func TestInvalidRowsAreRefusedEvenWhenAnEarlierUploadHadTheSameValidUsers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first := b.plan(b.queryOptions(oneUser))
	require.Equal(t, audience.Planned, first.Outcome)
	b.sendAll(first)

	for _, dry := range []bool{true, false} {
		o := b.queryOptions(oneUserFiftyBad)
		o.DryRun = dry
		var seen *audience.PlanResult
		o.Review = func(r *audience.PlanResult) { seen = r }
		res, err := audience.Plan(ctx, b.pool, o)
		var invalid *hashing.TooManyInvalidError
		require.True(t, errors.As(err, &invalid), "dry run %v: refused by the bound, not skipped: %v %+v", dry, err, res)
		require.ErrorContains(t, err, fiftyOfFiftyOneW)
		require.NotNil(t, seen, "dry run %v: the refused plan is shown, its invalid rows listed", dry)
		require.Equal(t, 50, seen.Report.RowsInvalid)
	}
	require.Equal(t, 1, b.uploads(), "nothing recorded of the refused source")
}

func TestAnEmptyAddRecordsNothingSoAnAllInvalidSourceIsRefusedNotSkipped(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for _, dry := range []bool{true, false} {
		o := b.queryOptions(noValue)
		o.DryRun = dry
		res, err := audience.Plan(ctx, b.pool, o)
		require.NoError(t, err)
		require.Zero(t, res.Report.RowsEmitted)
		require.Nil(t, res.Upload, "dry run %v: no upload", dry)
		require.Zero(t, res.Batches)
	}
	require.Zero(t, b.uploads(), "an empty add is a no-op: nothing recorded")
	require.Zero(t, b.runCount(), "and no run")

	res, err := audience.Plan(ctx, b.pool, b.queryOptions(fiftyBad))
	var invalid *hashing.TooManyInvalidError
	require.True(t, errors.As(err, &invalid), "refused, not skipped: %v %+v", err, res)
	require.ErrorContains(t, err, "50 of 50 rows invalid")
	require.Zero(t, b.uploads())
}

func TestAConfiguredAddAudienceWhoseSourceHasNoValidUserFailsItsRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	def := audience.Definition{Name: "vip", AccountID: b.account, AudienceID: b.audienceID, Query: noValue, Mode: audience.ModeAdd}
	for range 2 {
		res, err := b.keep(audience.SyncOptions{Definition: def, Trigger: "schedule"})
		var refused *audience.RefusedError
		require.True(t, errors.As(err, &refused), "refused: %v", err)
		require.ErrorContains(t, err, "audience vip: the source has no valid user")
		run := b.run(res.RunID)
		require.Equal(t, "failed", run.Outcome, "the run alerts")
		require.Contains(t, run.Error, "no valid user")
	}
	require.Zero(t, b.uploads())
	require.Empty(t, b.spy.requests())

	// A dry run fails the same way and records nothing.
	runs := b.runCount()
	_, err := audience.Sync(context.Background(), b.pool, audience.SyncOptions{Definition: def, DryRun: true})
	require.ErrorIs(t, err, audience.ErrNoValidUser)
	require.Equal(t, runs, b.runCount())
}

// A file already uploaded is skipped without being read again: the
// counts recorded of it are held to the bound instead.
func TestAFileAlreadyUploadedIsHeldToTheInvalidBoundByItsRecordedCounts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	o := b.options(b.writeFile("users.csv", "email\na@example.com\nbad1\nbad2\n"))
	o.MaxInvalid = bound.None()
	first := b.plan(o)
	require.Equal(t, audience.Planned, first.Outcome)
	b.sendAll(first)
	require.Equal(t, audience.Skipped, b.plan(o).Outcome, "allowed as before: skipped")

	o.MaxInvalid = bound.Max{}
	for _, dry := range []bool{true, false} {
		o.DryRun = dry
		_, err := audience.Plan(ctx, b.pool, o)
		var invalid *hashing.TooManyInvalidError
		require.True(t, errors.As(err, &invalid), "dry run %v: refused, not skipped: %v", dry, err)
		require.ErrorContains(t, err, fmt.Sprintf("(as recorded of upload %d): 2 of 3 rows invalid, more than --max-invalid 1%% (0)", first.Upload.ID))
	}

	// A configured audience of the file fails its run the same way.
	def := audience.Definition{Name: "crm", AccountID: b.account, AudienceID: b.audienceID, Path: o.Path, Mode: audience.ModeAdd}
	res, err := b.keep(audience.SyncOptions{Definition: def})
	var refused *audience.RefusedError
	require.True(t, errors.As(err, &refused), "%v", err)
	require.EqualError(t, err, "audience crm: 2 of 3 rows invalid, more than 1% (0); nothing was sent (3 rows read, 2 invalid)")
	require.Equal(t, "failed", b.run(res.RunID).Outcome)
}

// An adsync before this change recorded an add of no valid user as done
// with no user: the same file again is Empty, not skipped, and a
// configured audience of it fails.
func TestAFileRecordedEmptyByAnEarlierAdsyncIsEmptyNotSkipped(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	o := b.options(b.writeFile("users.csv", "email\na@example.com\n"))
	first := b.plan(o)
	b.sendAll(first)
	_, err := b.pool.Exec(ctx, `UPDATE audience_uploads SET users = 0, rows_read = 1, rows_invalid = 0 WHERE id = $1`, first.Upload.ID)
	require.NoError(t, err)

	res := b.plan(o)
	require.Equal(t, audience.Empty, res.Outcome)
	require.Nil(t, res.Upload)
	def := audience.Definition{Name: "crm", AccountID: b.account, AudienceID: b.audienceID, Path: o.Path, Mode: audience.ModeAdd}
	_, err = b.keep(audience.SyncOptions{Definition: def})
	require.ErrorIs(t, err, audience.ErrNoValidUser)
	require.Equal(t, 1, b.uploads())
}
