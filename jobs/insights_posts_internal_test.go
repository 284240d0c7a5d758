package jobs

import (
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/riverqueue/river/rivertype"
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

func TestJobOutcomeSnoozesRateLimitsAndCancelsInvalidRequests(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(time.Hour)
	var snooze *rivertype.JobSnoozeError
	require.ErrorAs(t, jobOutcome(fmt.Errorf("window: %w", &api.RetryAtError{At: at})), &snooze)
	require.InDelta(t, time.Hour.Seconds(), snooze.Duration.Seconds(), 60)

	var cancel *rivertype.JobCancelError
	require.ErrorAs(t, jobOutcome(&api.AdsError{Status: 400, Endpoint: "GET /12/insights/keywords/search"}), &cancel)
	require.ErrorAs(t, jobOutcome(&api.ProblemError{Status: 400, Endpoint: "GET /2/posts"}), &cancel)

	other := &api.AdsError{Status: 503}
	require.Same(t, error(other), jobOutcome(other), "server errors are retried")
}
