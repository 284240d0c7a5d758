package audience

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SyncOptions are one run of a Definition.
type SyncOptions struct {
	Definition Definition
	// Trigger is recorded with the run: "schedule" or "manual" (empty).
	Trigger string
	// DryRun plans against the audience, gives the plan to Review, applies
	// the bounds and records, creates and sends nothing.
	DryRun bool
	// Force lets a replace delete more than MaxDelete, and an add send a
	// source already sent.
	Force bool
	// Review, when set, is given a new plan before anything of it is
	// recorded (see PlanOptions.Review).
	Review func(*PlanResult)
	// ClientFor gives the client that creates the audience of a definition
	// with create:.
	ClientFor func(ctx context.Context, accountID string) (*api.Client, error)
	Enqueue   Enqueuer
	// Normalizer hashes the source (nil: hashing.DefaultOptions()).
	Normalizer *hashing.Normalizer
	Workers    int
	// Retried, when set, says whether River tries a failed attempt again;
	// only the failure of the last attempt is recorded as a run. Nil: every
	// failure is (a command's one attempt).
	Retried func(error) bool
	// MaxUsers and MaxBytes bound a request (zero: the service's limits).
	MaxUsers, MaxBytes int
}

// SyncResult is what a run of a definition did.
type SyncResult struct {
	AudienceID string
	// Created: this run created the audience of create:.
	Created bool
	// Plan is Plan's result (Planned, Resumed, Skipped or Previewed).
	Plan *PlanResult
	// RunID is the run recorded (0 for a dry run).
	RunID int64
}

// Sends reports whether the run left batches to send.
func (r *SyncResult) Sends() bool {
	return r.Plan != nil && (r.Plan.Outcome == Resumed || r.Plan.Outcome == Planned && r.Plan.Batches > 0)
}

// InFlightError is a run that did not start because an earlier upload to
// the audience is still being sent: planning now would diff against a
// membership about to change. Nothing was recorded.
type InFlightError struct {
	Name       string
	AudienceID string
	UploadID   int64
}

func (e *InFlightError) Error() string {
	return fmt.Sprintf("audience %s: upload %d to audience %s is still being sent ('adsync worker' sends it): run again once it is done",
		e.Name, e.UploadID, e.AudienceID)
}

// Sync runs a definition once: it finds (or, for create:, makes once) the
// audience and plans its source against it with Plan, recording the run
// and queueing its batches. A replace keeps the audience equal to the
// source whatever was uploaded before: it always plans anew against the
// membership adsync knows (an unchanged source plans nothing to send), so
// a source back to an earlier content is sent again, and its deletes are
// bounded here by the definition's max_delete.
//
// A plan refused by a bound (max_delete, too many invalid rows, no valid
// user: in add mode too, where Plan finds an empty source a no-op) is a
// *RefusedError: nothing of it is sent, and, unless DryRun, the run is
// recorded failed with the plan in its error. Other failures are
// recorded failed too (see Retried). A run waiting for an earlier upload
// to the audience is an *InFlightError, recorded only when Retried says
// the job gives up waiting.
func Sync(ctx context.Context, pool *pgxpool.Pool, o SyncOptions) (*SyncResult, error) {
	res := &SyncResult{}
	err := o.sync(ctx, pool, res)
	if err == nil || o.DryRun {
		return res, o.Definition.redactError(err)
	}
	var inFlight *InFlightError
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
	case errors.As(err, &inFlight) && o.Retried == nil:
		// A command's run that did not start is not a run.
		return res, err
	case o.Retried != nil && o.Retried(err):
		return res, o.Definition.redactError(err)
	}
	id, rerr := o.recordFailure(context.WithoutCancel(ctx), pool, res, err)
	res.RunID = id
	return res, o.Definition.redactError(errors.Join(err, rerr))
}

func (o *SyncOptions) sync(ctx context.Context, pool *pgxpool.Pool, res *SyncResult) error {
	d := o.Definition
	if o.Enqueue == nil && !o.DryRun {
		return fmt.Errorf("audience %s: no enqueuer", d.Name)
	}
	var err error
	if res.AudienceID, res.Created, err = o.audience(ctx, pool); err != nil {
		return fmt.Errorf("audience %s: %s: %w", d.Name, d.Target(), err)
	}
	planID := res.AudienceID
	if planID == "" {
		// A dry run of an audience not created yet plans against an empty
		// one (no id the service gives looks like this).
		planID = fmt.Sprintf("%q (not created yet)", d.Create)
	} else if err := inFlight(ctx, pool, d.Name, planID, 0); err != nil {
		return err
	}
	var seen *PlanResult
	po := o.planOptions(planID)
	po.Review = func(r *PlanResult) {
		seen = r
		if o.Review != nil {
			o.Review(r)
		}
	}
	po.Enqueue = func(ctx context.Context, tx pgx.Tx, uploadID int64, seqs []int) error {
		// Under Plan's lock of the audience: no other upload started since
		// the check above, and the deletes are within bounds.
		if err := inFlight(ctx, tx, d.Name, planID, uploadID); err != nil {
			return err
		}
		if err := o.checkDeletes(seen); err != nil {
			return err
		}
		return o.Enqueue(ctx, tx, uploadID, seqs)
	}
	res.Plan, err = Plan(ctx, pool, po)
	if err == nil && res.Plan.Outcome == Empty {
		// Nothing to add is no success for a configured audience: its
		// source is broken, and the failed run says so.
		seen, err = res.Plan, ErrNoValidUser
	}
	if err == nil && o.DryRun && seen != nil {
		err = o.checkDeletes(seen)
	}
	if err != nil {
		return o.refusal(seen, err)
	}
	if o.DryRun {
		return nil
	}
	return o.recordRun(ctx, pool, res)
}

// audience is the audience id of the definition; "" for a dry run of an
// audience not created yet.
func (o *SyncOptions) audience(ctx context.Context, pool *pgxpool.Pool) (string, bool, error) {
	d := o.Definition
	if d.Create == "" {
		return d.AudienceID, false, nil
	}
	if o.DryRun {
		id, err := CreatedID(ctx, pool, d.AccountID, d.Create)
		return id, false, err
	}
	if o.ClientFor == nil {
		return "", false, errors.New("no client to create the audience with")
	}
	c, err := o.ClientFor(ctx, d.AccountID)
	if err != nil {
		return "", false, err
	}
	return EnsureAudience(ctx, pool, c, d.AccountID, d.Create)
}

// planOptions are the Plan options of a run to audienceID. A replace is
// planned with Force: the bound on its deletes is applied by checkDeletes
// with the definition's own words, and no earlier upload of the same
// content may stand for the membership now (a source back to an earlier
// content must be sent again).
func (o *SyncOptions) planOptions(audienceID string) PlanOptions {
	d := o.Definition
	po := d.planOptions(audienceID, o.Normalizer)
	po.Force = o.Force || d.Mode == ModeReplace
	po.DryRun, po.Workers = o.DryRun, max(o.Workers, 1)
	po.MaxUsers, po.MaxBytes, po.Trigger = o.MaxUsers, o.MaxBytes, cmp.Or(o.Trigger, "manual")
	return po
}

// checkDeletes applies the definition's max_delete to a replace's plan.
func (o *SyncOptions) checkDeletes(plan *PlanResult) error {
	d := o.Definition
	if d.Mode != ModeReplace || o.Force || plan == nil {
		return nil
	}
	limit := d.MaxDelete.Or(DefaultMaxDelete)
	if s := plan.Summary; !limit.Allows(s.Deletes, s.Known) {
		return &DeleteBoundError{Deletes: s.Deletes, Known: s.Known, Max: limit}
	}
	return nil
}

// refusal makes a plan's refusal by a bound a *RefusedError carrying the
// plan; any other error is named after the definition.
func (o *SyncOptions) refusal(plan *PlanResult, err error) error {
	var inFlight *InFlightError
	if errors.As(err, &inFlight) {
		return inFlight
	}
	var del *DeleteBoundError
	var invalid *hashing.TooManyInvalidError
	if plan == nil && errors.As(err, &invalid) {
		// Refused by the counts recorded of an earlier upload of the same
		// file, which was not read again.
		plan = &PlanResult{Outcome: Refused, Report: hashing.Report{RowsRead: invalid.Read, RowsInvalid: invalid.Invalid}}
	}
	if plan != nil && (errors.As(err, &del) || errors.Is(err, ErrNoValidUser) || errors.As(err, &invalid)) {
		return &RefusedError{Definition: o.Definition, Plan: *plan, Err: err}
	}
	return fmt.Errorf("audience %s: %w", o.Definition.Name, err)
}

// inFlight is an *InFlightError when an upload to audienceID other than
// except is still being sent.
func inFlight(ctx context.Context, db querier, name, audienceID string, except int64) error {
	var id int64
	err := db.QueryRow(ctx, `SELECT id FROM audience_uploads WHERE audience_id = $1 AND state = 'planned' AND id <> $2
		ORDER BY id LIMIT 1`, audienceID, except).Scan(&id)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	return &InFlightError{Name: name, AudienceID: audienceID, UploadID: id}
}
