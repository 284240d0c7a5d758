package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DayActivity is one UTC day's work, by the start of the runs that did it.
type DayActivity struct {
	Day time.Time // midnight UTC
	// RowsSynced sums the records the day's advertising syncs fetched.
	RowsSynced int64
	// UsersUploaded sums the users the service accepted in the day's
	// audience uploads.
	UsersUploaded int64
	// RowsExported sums the rows the day's exports wrote.
	RowsExported int64
	// FailedRuns counts the day's runs of any pipeline that failed.
	FailedRuns int64
}

// ReadActivity reads the activity of the days UTC days ending with the day
// of end, oldest first: one entry a day, zero for a day without runs.
func ReadActivity(ctx context.Context, pool *pgxpool.Pool, days int, end time.Time) ([]DayActivity, error) {
	if days < 1 {
		return nil, fmt.Errorf("activity: days %d: must be at least 1", days)
	}
	end = end.UTC()
	last := time.Date(end.Year(), end.Month(), end.Day(), 0, 0, 0, 0, time.UTC)
	first := last.AddDate(0, 0, -(days - 1))
	out := make([]DayActivity, days)
	for i := range out {
		out[i].Day = first.AddDate(0, 0, i)
	}
	// A sync's counts hold one object per entity; an export's one number
	// per table; an upload's users_accepted is what the service took.
	rows, err := pool.Query(ctx, `SELECT (started_at AT TIME ZONE 'UTC')::date,
    coalesce(sum((SELECT sum((v->>'fetched')::numeric) FROM jsonb_each(counts) e(k, v)
        WHERE jsonb_typeof(v) = 'object' AND jsonb_typeof(v->'fetched') = 'number')) FILTER (WHERE pipeline = 'sync'), 0)::bigint,
    coalesce(sum((counts->>'users_accepted')::numeric) FILTER (WHERE pipeline = 'audience' AND jsonb_typeof(counts->'users_accepted') = 'number'), 0)::bigint,
    coalesce(sum((SELECT sum(v::text::numeric) FROM jsonb_each(counts) e(k, v) WHERE jsonb_typeof(v) = 'number'))
        FILTER (WHERE pipeline = 'export'), 0)::bigint,
    count(*) FILTER (WHERE outcome = 'failed')
FROM sync_runs WHERE started_at >= $1 AND started_at < $2 GROUP BY 1`, first, last.AddDate(0, 0, 1))
	if err != nil {
		return nil, fmt.Errorf("activity: reading runs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var d DayActivity
		if err := rows.Scan(&d.Day, &d.RowsSynced, &d.UsersUploaded, &d.RowsExported, &d.FailedRuns); err != nil {
			return nil, fmt.Errorf("activity: reading runs: %w", err)
		}
		i := int(d.Day.Sub(first).Hours() / 24)
		if i >= 0 && i < days {
			d.Day = out[i].Day
			out[i] = d
		}
	}
	return out, rows.Err()
}

// UnitSummary is one unit of a run: an (account, entity) pair's state,
// counts and error, redacted.
type UnitSummary struct {
	AccountID, Entity, State string
	Fetched, Inserted        int64
	Updated, Deleted         int64
	Error                    string
}

// RunDetail is a run as its page shows it: its summary (error redacted),
// per-entity totals, the accounts a sync left out and up to a limit of its
// units, failed ones first.
type RunDetail struct {
	RunSummary
	Entities             []EntityCounts
	InaccessibleAccounts []string
	Units                []UnitSummary
	// MoreUnits says how many units the limit left out.
	MoreUnits int
}

// ReadRunDetail reads run runID; pgx.ErrNoRows when there is none.
func ReadRunDetail(ctx context.Context, pool *pgxpool.Pool, runID int64, unitLimit int) (*RunDetail, error) {
	d := &RunDetail{}
	r := &d.RunSummary
	var counts []byte
	err := pool.QueryRow(ctx, `SELECT id, pipeline, trigger, started_at, finished_at, outcome, counts, coalesce(error, '')
		FROM sync_runs WHERE id = $1`, runID).Scan(&r.ID, &r.Pipeline, &r.Trigger, &r.StartedAt, &r.FinishedAt, &r.Outcome, &counts, &r.Error)
	if err != nil {
		return nil, err
	}
	_ = json.Unmarshal(counts, &r.Counts)
	r.Error = Redact(r.Error)
	run, err := GetRun(ctx, pool, runID)
	if err != nil {
		return nil, fmt.Errorf("run %d: reading its units: %w", runID, err)
	}
	d.Entities, d.InaccessibleAccounts = run.Entities, run.InaccessibleAccounts
	rows, err := pool.Query(ctx, `SELECT account_id, entity, state, fetched, inserted, updated, deleted, coalesce(error, ''),
    count(*) OVER ()
FROM sync_run_units WHERE run_id = $1 ORDER BY state <> 'failed', account_id, entity LIMIT $2`, runID, unitLimit)
	if err != nil {
		return nil, fmt.Errorf("run %d: reading its units: %w", runID, err)
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		var u UnitSummary
		if err := rows.Scan(&u.AccountID, &u.Entity, &u.State, &u.Fetched, &u.Inserted, &u.Updated, &u.Deleted, &u.Error, &total); err != nil {
			return nil, fmt.Errorf("run %d: reading its units: %w", runID, err)
		}
		u.Error = Redact(u.Error)
		d.Units = append(d.Units, u)
	}
	d.MoreUnits = total - len(d.Units)
	return d, rows.Err()
}
