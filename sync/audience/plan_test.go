package audience_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/sync/audience"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

func TestAPlanThatFailsMidwayLeavesNothingAndTheNextPlanStartsClean(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	o := b.options(b.writeFile("users.csv", emailsCSV(0, 500)))
	o.MaxUsers = 100
	enqueue := o.Enqueue
	o.Enqueue = func(context.Context, pgx.Tx, int64, []int) error { return errors.New("process killed") }
	_, err := audience.Plan(ctx, b.pool, o)
	require.ErrorContains(t, err, "process killed")
	var uploads, batches int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM audience_uploads), (SELECT count(*) FROM audience_batches)`).Scan(&uploads, &batches))
	require.Zero(t, uploads)
	require.Zero(t, batches)

	o.Enqueue = enqueue
	res := b.plan(o)
	require.Equal(t, audience.Planned, res.Outcome, "not mistaken for a resumable upload")
	require.Equal(t, 5, res.Batches)
	var jobs int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'audience_batch'`).Scan(&jobs))
	require.Equal(t, 5, jobs, "one job per batch, inserted with the plan")
	var args string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT args::text FROM river_job WHERE kind = 'audience_batch' AND args->>'seq' = '1'`).Scan(&args))
	require.JSONEq(t, fmt.Sprintf(`{"upload_id":%d,"seq":1}`, res.Upload.ID), args, "job args name the batch, nothing else")
}

func TestPlanRefusesAUserLargerThanARequestNamingItsLine(t *testing.T) {
	t.Parallel()
	b := setup(t)
	o := b.options(b.writeFile("users.csv", emailsCSV(0, 3)))
	o.MaxBytes = 120
	_, err := audience.Plan(context.Background(), b.pool, o)
	require.ErrorContains(t, err, "line 2: user object larger than a whole request body")
}

// An add of no valid user would change nothing: it is Empty, and nothing
// of it is recorded (no upload a later source could be skipped against).
func TestPlanOfAnAddWithoutValidRowsIsEmptyAndRecordsNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	o := b.options(b.writeFile("users.csv", "email\nnope\n"))
	o.MaxInvalid = bound.None()
	for _, op := range []string{audience.OperationUpdate, audience.OperationDelete} {
		o.Operation = op
		res := b.plan(o)
		require.Equal(t, audience.Empty, res.Outcome, op)
		require.Nil(t, res.Upload, op)
		require.Equal(t, 1, res.Report.RowsInvalid, op)
	}
	require.Zero(t, b.uploads())
	require.Zero(t, b.runCount())
	require.Empty(t, b.spy.requests())
}
