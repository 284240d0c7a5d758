package jobs_test

import (
	"context"
	"testing"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// A client works the queues it is given, all four by default: each queue
// worked registers itself (river_queue) when the client starts.
func TestAClientWorksTheQueuesItIsGiven(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		queues []string
		want   []string
	}{
		{nil, []string{jobs.QueueAudience, jobs.QueueDefault, jobs.QueueExport, jobs.QueueSync}},
		{[]string{jobs.QueueSync}, []string{jobs.QueueSync}},
	} {
		ctx := context.Background()
		pool := synctest.Pool(t, synctest.MigratedDatabase(t))
		c, err := jobs.NewClient(&jobs.Deps{Pool: pool}, jobs.Options{Work: true, Queues: tc.queues})
		require.NoError(t, err)
		require.NoError(t, c.Start(ctx))
		rows, err := pool.Query(ctx, `SELECT name FROM river_queue ORDER BY name`)
		require.NoError(t, err)
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		require.NoError(t, c.Stop(ctx))
		require.Equal(t, tc.want, names, "queues %v", tc.queues)
	}
}
