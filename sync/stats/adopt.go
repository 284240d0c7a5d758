package stats

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
)

// A POST whose answer is lost (the connection dropped, the process died)
// may or may not have created its job. Before every POST the row records
// an intent: the service's clock and the account's jobs of that second, as
// a listing of the account's jobs answered just before the POST shows them.
// A later attempt adopts only a job with the row's parameters that is
// younger than that intent by the service's own clock, was not listed by
// it, and is recorded by no stats_jobs row of any run; when none
// qualifies, it creates the job again.
//
// Why a listing at intent, and not the client's last seen Date or this
// machine's clock: the intent must bound the service's clock from below at
// the moment of the POST. Our clock may be minutes off the service's (the
// old allowance took any job of the 5 minutes before, which let a job an
// earlier run had created and stored be adopted); the last Date the client
// saw may be much older than the POST (the worker may not have talked to
// the service for hours), so jobs created in between would slip in. A
// listing answered just before the POST costs one request per job created
// (jobs take minutes and are polled anyway) and gives both the service's
// clock then (its Date header) and the jobs that existed then.
//
// Whole seconds: the Date header and created_at both truncate to the
// second. Our POST is handled after the listing was answered, so its job's
// created_at is at or after the listing's Date: the test "created_at >=
// intent" never excludes the fresh job. A job created before the listing,
// in the same second, passes that test; but the listing showed it, so it is
// in intent_seen_jobs and excluded by id. Jobs of earlier seconds fail the
// test. Neither way does an older job slip in, or the fresh one fall out.

// intent is what the service showed just before a POST.
type intent struct {
	// at is the service's clock (Date header, whole seconds).
	at time.Time
	// seen are the jobs listed created at or after at.
	seen []string
}

func parseJobTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

// recentJobs lists the account's jobs newest first, down to the first one
// created before since, and returns the service's clock of the first
// answer. With since zero it lists down to that clock (or, when the answer
// had no Date, down to the newest job's creation: a lower bound of the
// service's clock too).
func recentJobs(ctx context.Context, c *api.Client, accountID string, since time.Time) ([]ServiceJob, time.Time, error) {
	lr := api.ListRequest{Base: api.BaseAds, Path: jobsPath(accountID), Endpoint: EndpointJobList, AccountID: accountID}
	var out []ServiceJob
	var date time.Time
	first := true
	for page, err := range api.Pages[ServiceJob](ctx, c, lr) {
		if err != nil {
			return nil, date, fmt.Errorf("account %s: listing stats jobs: %w", accountID, err)
		}
		if first {
			date, first = page.Date, false
			if since.IsZero() {
				since = date
			}
			if since.IsZero() && len(page.Items) > 0 {
				since, _ = parseJobTime(page.Items[0].CreatedAt)
			}
		}
		out = append(out, page.Items...)
		if n := len(page.Items); n > 0 {
			if t, ok := parseJobTime(page.Items[n-1].CreatedAt); ok && t.Before(since) {
				break // newest first: the rest are older still
			}
		}
	}
	return out, date, nil
}

// newIntent is the intent a listing answered at date shows.
func newIntent(jobs []ServiceJob, date time.Time) intent {
	in := intent{at: date, seen: []string{}}
	if in.at.IsZero() && len(jobs) > 0 {
		in.at, _ = parseJobTime(jobs[0].CreatedAt)
	}
	if in.at.IsZero() {
		in.at = time.Unix(0, 0).UTC() // nothing listed, no clock: every job found later is younger
	}
	for _, sj := range jobs {
		if t, ok := parseJobTime(sj.CreatedAt); !ok || !t.Before(in.at) {
			in.seen = append(in.seen, sj.ID) // a time it cannot read keeps a job out
		}
	}
	return in
}

// candidates are the jobs of jobs that may be the one j's last POST
// created, newest first: its parameters, created at or after the intent by
// the service's clock, not listed by the intent. Their status does not
// matter: a fresh job that FAILED is this attempt's, and counts as a
// failure.
func (j jobRow) candidates(jobs []ServiceJob) []string {
	asked := j.q.values(*j.intentAt) // the offset in force when the job was asked for
	var out []string
	for _, sj := range jobs {
		created, ok := parseJobTime(sj.CreatedAt)
		if !ok || created.Before(*j.intentServiceAt) || slices.Contains(j.intentSeen, sj.ID) {
			continue
		}
		if len(sj.differs(j.q.Account.ID, asked)) == 0 {
			out = append(out, sj.ID)
		}
	}
	return out
}

// claim records as j's job the first of candidates that no stats_jobs row
// (of any run, now or before) has recorded, under the account's advisory
// lock so two rows never claim one job. It reports whether it found one.
func (r *Runner) claim(ctx context.Context, j jobRow, candidates []string) (bool, error) {
	if len(candidates) == 0 {
		return false, nil
	}
	found := false
	err := pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('adsync stats jobs ' || $1))`, j.q.Account.ID); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT service_job_id FROM stats_jobs WHERE account_id = $1 AND service_job_id = ANY($2)
UNION SELECT p FROM stats_jobs, unnest(past_job_ids) p WHERE account_id = $1 AND p = ANY($2)`, j.q.Account.ID, candidates)
		if err != nil {
			return err
		}
		recorded, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, id := range candidates {
			if slices.Contains(recorded, id) {
				continue
			}
			found = true
			// next_poll_at NULL: an adopted job may be done, poll it at once.
			return setJob(ctx, tx, j.id, `state = 'waiting', service_job_id = $2, `+unpolled, id)
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("account %s: stats job %d: adopting its service job: %w", j.q.Account.ID, j.id, err)
	}
	return found, nil
}
