package audience

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// RefusedError is a run of a definition whose plan a bound refused:
// nothing of it was recorded or sent. Its message holds the plan.
type RefusedError struct {
	Definition Definition
	Plan       PlanResult
	// Err is the bound's error: a *DeleteBoundError, ErrNoValidUser or a
	// *hashing.TooManyInvalidError.
	Err error
}

func (e *RefusedError) Unwrap() error { return e.Err }

func (e *RefusedError) Error() string {
	d, s, r := e.Definition, e.Plan.Summary, e.Plan.Report
	plan := fmt.Sprintf("add %d users", s.Adds)
	if d.Mode == ModeReplace {
		plan = fmt.Sprintf("add %d users, delete %d of %d known identifiers, %d users unchanged", s.Adds, s.Deletes, s.Known, s.Unchanged)
	}
	var why, hint string
	var del *DeleteBoundError
	var invalid *hashing.TooManyInvalidError
	switch {
	case errors.As(e.Err, &del):
		why = fmt.Sprintf("replace would delete %d of %d known identifiers, more than max_delete %s", del.Deletes, del.Known, del.Max.Describe(del.Known))
		hint = fmt.Sprintf("; if the source is right, adsync audience sync %s --force sends it", d.Name)
	case errors.Is(e.Err, ErrNoValidUser) && d.Mode == ModeReplace:
		why = "the source has no valid user: a replace would delete every member"
	case errors.Is(e.Err, ErrNoValidUser):
		why = "the source has no valid user: nothing to add; a source that yields no user is taken for a broken query or file"
	case errors.As(e.Err, &invalid):
		why = fmt.Sprintf("%d of %d rows invalid, more than %s", invalid.Invalid, invalid.Read, invalid.Max.Describe(int64(invalid.Read)))
		// Refused as read, before it was compared with the audience.
		plan = ""
	default:
		why = e.Err.Error()
	}
	detail := fmt.Sprintf("%d rows read, %d invalid", r.RowsRead, r.RowsInvalid)
	if plan != "" {
		detail = "plan: " + plan + "; " + detail
	}
	return fmt.Sprintf("audience %s: %s; nothing was sent (%s)%s", d.Name, why, detail, hint)
}

// counts are the run's counts of a refused plan: what it would have sent,
// named apart from what a run sends.
func (e *RefusedError) counts() map[string]int64 {
	s, r := e.Plan.Summary, e.Plan.Report
	return map[string]int64{"rows_read": int64(r.RowsRead), "rows_invalid": int64(r.RowsInvalid), "users": 0, "batches": 0,
		"planned_adds": s.Adds, "planned_deletes": s.Deletes, "known": s.Known, "unchanged": s.Unchanged}
}

// params are what a run of o records that Plan does not record itself.
func (o *SyncOptions) params(audienceID string) map[string]string {
	d := o.Definition
	p := d.runParams()
	maps.Copy(p, map[string]string{"account_id": d.AccountID, "operation": OperationUpdate, "mode": cmp.Or(d.Mode, ModeAdd)})
	if audienceID != "" {
		p["audience_id"] = audienceID
	}
	return p
}

// recordRun records what a run that planned did: Plan recorded a new or
// resumed upload's run, which gets the definition's name; a source already
// sent (Skipped) is a run of its own that sent nothing.
func (o *SyncOptions) recordRun(ctx context.Context, pool *pgxpool.Pool, res *SyncResult) error {
	up := res.Plan.Upload
	if res.Plan.Outcome != Skipped {
		if err := pool.QueryRow(ctx, `SELECT run_id FROM audience_uploads WHERE id = $1`, up.ID).Scan(&res.RunID); err != nil {
			return err
		}
		return store.AddRunParams(ctx, pool, res.RunID, o.Definition.runParams())
	}
	p := o.params(res.AudienceID)
	p["same_as_upload"] = fmt.Sprint(up.ID)
	id, _, err := store.StartRun(ctx, pool, Pipeline, cmp.Or(o.Trigger, "manual"), p)
	if err != nil {
		return err
	}
	res.RunID = id
	return store.SetRun(ctx, pool, id, store.RunSucceeded, map[string]int64{"rows_read": 0, "users": 0, "adds": 0, "deletes": 0, "batches": 0}, "")
}

// recordFailure records a failed run with err as its error (credentials
// redacted) and, for a refused plan, the plan's counts.
func (o *SyncOptions) recordFailure(ctx context.Context, pool *pgxpool.Pool, res *SyncResult, err error) (int64, error) {
	counts := map[string]int64{"users": 0, "batches": 0}
	var refused *RefusedError
	if errors.As(err, &refused) {
		counts = refused.counts()
	}
	id, _, rerr := store.StartRun(ctx, pool, Pipeline, cmp.Or(o.Trigger, "manual"), o.params(res.AudienceID))
	if rerr != nil {
		return 0, rerr
	}
	return id, store.SetRun(ctx, pool, id, store.RunFailed, counts, o.Definition.redact(store.Redact(err.Error())))
}
