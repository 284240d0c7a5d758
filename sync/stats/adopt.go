package stats

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
)

// A POST whose answer is lost (the connection dropped, the process died)
// may or may not have created its job. Before every POST the row records
// an intent: the service's clock and the account's jobs of that second, as
// a listing of the account's jobs shows them. A later attempt adopts only a
// job with the row's parameters that is younger than that intent by the
// service's own clock, was not listed by it, and is recorded by no
// stats_jobs row of any run; when none qualifies, it creates the job again.
//
// Why a listing, and not the client's last seen Date or this machine's
// clock: the intent must bound the service's clock from below at the
// moment of the POST. Our clock may be minutes off the service's (the old
// allowance took any job of the 5 minutes before, which let a job an
// earlier run had created and stored be adopted); the last Date the client
// saw may be much older than the POST (the worker may not have talked to
// the service for hours), so jobs created in between would slip in. A
// listing gives both the service's clock (its Date header) and the jobs
// that existed then.
//
// Whole seconds: the Date header and created_at both truncate to the
// second. Our POST is handled after the listing was answered, so its job's
// created_at is at or after the listing's Date: the test "created_at >=
// intent" never excludes the fresh job. A job created before the listing,
// in the same second, passes that test; but the listing showed it, so it is
// in intent_seen_jobs and excluded by id. Jobs of earlier seconds fail the
// test. Neither way does an older job slip in, or the fresh one fall out.
//
// One listing, many POSTs. A listing is not taken before each POST: the
// account's newest one (stats_job_listings) is every POST's intent while it
// is younger than listingShareFor and was asked for after the row last
// became pending (inserted by its run, or sent back by forget to be
// created again): its seq, a nextval of stats_jobs_pending_seq taken
// before the listing was asked for, is greater than the row's pending_seq,
// taken when it became pending. Otherwise the row takes a new listing,
// under an advisory lock per account so that rows starting at once take
// one, and records it for the POSTs that follow. Why that is as safe:
//   - The row's own job is still found. The intent is written after the
//     listing was answered and the POST sent after the intent, so the job
//     it creates is younger than the listing (created_at at or after its
//     Date) and absent from it, however many POSTs the listing served
//     before: the argument above never needed the listing to be the last
//     request before the POST, only to be answered before it. A crash
//     after a row wrote that intent (before its POST, during it, before
//     its answer was recorded), however long after the listing, leaves the
//     row 'creating' with it, and the next attempt lists down to it and
//     adopts the job if the POST made one.
//   - No job older than the row's need slips in. Every job that existed
//     when the listing was answered is excluded (older second, or listed),
//     and the listing was asked for after the row became pending, so every
//     job that existed then (an earlier run's job, stored or not, one this
//     row had before) is excluded, as a listing just before the POST
//     excluded it. The sequence, not a clock, orders the two: nextval is
//     called in real time order on one server, whatever the workers'
//     clocks say, and the row's value is taken in its run, after the run
//     began.
//   - What the shared listing lets in besides: a job created after the
//     listing and before the row's POST, with the row's very parameters,
//     recorded by no row (another tool's, or another row's whose answer was
//     lost too), as a listing just before the POST let in such a job of
//     the moment between the two. It was asked for after the row's need
//     arose, so its data is no older than that need; listingShareFor
//     bounds the moment to a minute (and so the listing an attempt after a
//     crash reads down to).
// Other rows' jobs created after the listing are recorded by their rows
// as soon as their POSTs answer, and claim (under the account's lock)
// never gives one job to two rows.

// listingShareFor is how long (our clock) a listing of an account's jobs
// serves the intents of its POSTs.
const listingShareFor = time.Minute

// intent is what a listing answered before a POST showed.
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

// sharedIntent is the intent of j's next POST: the account's newest
// listing when it serves j (see above), else a new listing, recorded for
// the POSTs that follow. The lock is held over the listing's request, so
// rows of the account starting at once wait for one listing.
func (r *Runner) sharedIntent(ctx context.Context, c *api.Client, j jobRow) (intent, error) {
	account := j.q.Account.ID
	var in intent
	var listErr error
	err := pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('adsync stats listing ' || $1))`, account); err != nil {
			return err
		}
		now := r.clock()
		err := tx.QueryRow(ctx, `SELECT service_at, seen_jobs FROM stats_job_listings
WHERE account_id = $1 AND seq > $2 AND taken_at > $3 AND taken_at < $4`,
			account, j.pendingSeq, now.Add(-listingShareFor), now.Add(listingShareFor)).Scan(&in.at, &in.seen)
		if !errors.Is(err, pgx.ErrNoRows) {
			return err // nil: the listing serves j
		}
		// Taken before the request: the listing is asked for after it.
		var seq int64
		if err := tx.QueryRow(ctx, `SELECT nextval('stats_jobs_pending_seq')`).Scan(&seq); err != nil {
			return err
		}
		jobs, date, err := recentJobs(ctx, c, account, time.Time{})
		if err != nil {
			listErr = err // names the account and the listing
			return err
		}
		in = newIntent(jobs, date)
		_, err = tx.Exec(ctx, `INSERT INTO stats_job_listings (account_id, seq, service_at, seen_jobs, taken_at)
VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id) DO UPDATE
SET seq = excluded.seq, service_at = excluded.service_at, seen_jobs = excluded.seen_jobs, taken_at = excluded.taken_at`,
			account, seq, in.at, in.seen, r.clock())
		return err
	})
	switch {
	case listErr != nil:
		return intent{}, listErr
	case err != nil:
		return intent{}, fmt.Errorf("account %s: stats job %d: the shared listing of the account's jobs: %w", account, j.id, err)
	}
	return in, nil
}
