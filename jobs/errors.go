package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// snoozePad wakes a job just after the moment the service named, not just
// before it.
const snoozePad = 10 * time.Millisecond

// riverError is how every worker answers River for a failed attempt, by
// what api.Explain says err means: a wait the service named snoozes the job
// (no attempt is spent); an answer no retry can change cancels it; anything
// else is returned for River to retry with the worker's backoff. final says
// River will not run the job again (cancelled, or its last attempt failed),
// so the worker records the failure where it keeps state. A worker that is
// shutting down (ctx done) returns err as it is: the job runs again.
func riverError(ctx context.Context, job *rivertype.JobRow, err error) (out error, final bool) {
	if err == nil {
		return nil, false
	}
	var snooze *rivertype.JobSnoozeError
	var cancel *rivertype.JobCancelError
	switch {
	case errors.As(err, &snooze):
		return err, false
	case errors.As(err, &cancel):
		return err, true
	case ctx.Err() != nil:
		return err, false
	}
	m := api.Explain(err)
	switch m.Verdict {
	case api.WaitUntil:
		return river.JobSnooze(max(time.Until(m.At), 0) + snoozePad), false
	case api.Final:
		return river.JobCancel(err), true
	}
	return err, job.Attempt >= job.MaxAttempts
}
