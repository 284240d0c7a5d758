package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBadCronSpecIsRejectedNamingKeyAndSpec(t *testing.T) {
	t.Parallel()
	err := ValidateSchedules(map[string]string{"sync": "0 2 * *"})
	require.ErrorContains(t, err, `schedules.sync: invalid cron spec "0 2 * *"`)
	err = ValidateSchedules(map[string]string{"export": "CRON_TZ=Mars/Olympus 0 4 * * *"})
	require.ErrorContains(t, err, `schedules.export`)
	require.ErrorContains(t, err, "Mars/Olympus")
	err = ValidateSchedules(map[string]string{"reports": "@daily"})
	require.ErrorContains(t, err, "schedules.reports: unknown pipeline")
}

func TestScheduleHonoursCronTZ(t *testing.T) {
	t.Parallel()
	s, err := ParseSchedule("sync", "CRON_TZ=America/New_York 0 2 * * *")
	require.NoError(t, err)
	from := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	// 02:00 in New York in January is 07:00 UTC.
	require.Equal(t, time.Date(2026, 1, 11, 7, 0, 0, 0, time.UTC), s.Next(from).UTC())
	d, err := ParseSchedule("sync", "@daily")
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 1, 11, 0, 0, 0, 0, time.UTC), d.Next(from).UTC())
}

func TestEmptySpecsDisableTheirSchedule(t *testing.T) {
	t.Parallel()
	jobs, err := PeriodicJobs(map[string]string{"sync": "", "insights": "", "posts": "", "export": ""})
	require.NoError(t, err)
	require.Empty(t, jobs)
}
