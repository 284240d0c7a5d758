package jobs

import (
	"bytes"
	"testing"

	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"
)

// A command following its job says each failed attempt River retries
// once, decodes a completed job's output, and ends a cancelled or
// discarded one with its last error, named once.
func TestAFollowedJobEndsWithItsOutputOrItsLastErrorNamedOnce(t *testing.T) {
	t.Parallel()
	var errs bytes.Buffer
	l := &Local{Err: &errs}
	failed := func(state rivertype.JobState, msgs ...string) *rivertype.JobRow {
		job := &rivertype.JobRow{ID: 7, State: state, Attempt: len(msgs)}
		for i, m := range msgs {
			job.Errors = append(job.Errors, rivertype.AttemptError{Attempt: i + 1, Error: m})
		}
		return job
	}

	reported := 0
	var out map[string]int
	for range 2 {
		done, err := l.jobEnded(failed(rivertype.JobStateRetryable, "HTTP 503"), "posts fetch", &reported, &out)
		require.False(t, done)
		require.NoError(t, err)
	}
	require.Equal(t, "posts fetch job 7: attempt 1 failed, retrying: HTTP 503\n", errs.String(), "each failed attempt is said once")

	done, err := l.jobEnded(&rivertype.JobRow{ID: 7, State: rivertype.JobStateCompleted, Metadata: []byte(`{"output":{"sets":1,"windows":2}}`)},
		"insights", &reported, &out)
	require.True(t, done)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"sets": 1, "windows": 2}, out)

	for _, tt := range []struct{ what, last, want string }{
		{"posts fetch", "JobCancelError: no synced advertising posts: run adsync sync first", "posts fetch: no synced advertising posts: run adsync sync first"},
		{"export", "JobCancelError: export: output folder /x: not adsync's", "export: output folder /x: not adsync's"},
		{"export", "export campaigns: disk full", "export campaigns: disk full"},
	} {
		done, err := l.jobEnded(failed(rivertype.JobStateCancelled, "first", tt.last), tt.what, &reported, &out)
		require.True(t, done)
		require.EqualError(t, err, tt.want)
	}
	done, err = l.jobEnded(failed(rivertype.JobStateDiscarded), "export", &reported, &out)
	require.True(t, done)
	require.EqualError(t, err, "export: unknown error")
}

// A command working its own jobs finds a job that a short snooze left due
// (no notification comes for it) within commandFetchPoll, not River's
// one-second default poll; the daemon keeps River's default and runs the
// schedules and maintenance a command does not.
func TestACommandsWorkersFindASnoozedJobWithinAPollOfTheCommandNotRiversSecond(t *testing.T) {
	t.Parallel()
	l := &Local{Concurrency: map[string]int{QueueSync: 4}, Schedules: map[string]string{"sync": "@every 1h"}}
	cmd := l.options("c", false, []string{QueueSync})
	require.Equal(t, commandFetchPoll, cmd.FetchPollInterval)
	require.LessOrEqual(t, cmd.FetchPollInterval, jobPoll, "a command follows its job no more often than its workers find it")
	require.Equal(t, []string{QueueSync}, cmd.Queues)
	require.Nil(t, cmd.Schedules)
	require.False(t, cmd.Maintenance)

	daemon := l.options("d", true, nil)
	require.Zero(t, daemon.FetchPollInterval, "the daemon polls at River's default")
	require.True(t, daemon.Maintenance)
	require.Equal(t, l.Schedules, daemon.Schedules)
}
