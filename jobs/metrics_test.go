package jobs_test

import (
	"strings"
	"testing"

	"github.com/adsync/adsync/jobs"
	"github.com/stretchr/testify/require"
)

// Every adsync_* family is scraped from a fresh registry, at zero, so
// alerts on rates and absences work before the first job.
func TestFreshMetricsShowEveryAdsyncFamilyAtZero(t *testing.T) {
	t.Parallel()
	families, err := jobs.NewMetrics().Registry().Gather()
	require.NoError(t, err)
	series := map[string]int{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "adsync_") {
			continue // the Go runtime's and the process's
		}
		for _, m := range f.GetMetric() {
			series[f.GetName()]++
			if c := m.GetCounter(); c != nil {
				require.Zero(t, c.GetValue(), f.GetName())
			}
			if h := m.GetHistogram(); h != nil {
				require.Zero(t, h.GetSampleCount(), f.GetName())
			}
		}
	}
	for _, name := range []string{"adsync_jobs_total", "adsync_job_duration_seconds", "adsync_api_requests_total",
		"adsync_api_request_duration_seconds", "adsync_rate_limit_waits_total", "adsync_rate_limit_wait_seconds_total",
		"adsync_records_synced_total", "adsync_audience_users_total", "adsync_export_rows_total"} {
		require.Positive(t, series[name], "%s is scraped from the start", name)
	}
	require.GreaterOrEqual(t, series["adsync_jobs_total"], 8*5, "every job kind with every outcome")
}
