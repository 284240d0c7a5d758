package jobs

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestInsightsAndPostsSchedulesBuildTheirJobs(t *testing.T) {
	t.Parallel()
	periodic, err := PeriodicJobs(map[string]string{PipelineInsights: "@daily", PipelinePosts: "@hourly"})
	require.NoError(t, err)
	require.Len(t, periodic, 2)

	args, _ := pipelineJobs[PipelineInsights]()
	require.Equal(t, InsightsArgs{Trigger: "schedule"}, args, "a scheduled run fetches every configured set")
	args, _ = pipelineJobs[PipelinePosts]()
	require.Equal(t, PostsFetchArgs{FromAds: true, FromConfig: true, Trigger: "schedule"}, args)
}
