package jobs

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/schollz/progressbar/v3"
)

// AudienceUpload is one upload of a file or a query's users to a custom
// audience (adsync audience upload).
type AudienceUpload struct {
	// Plan is the upload, checked; its Enqueue and Review are set here.
	Plan audience.PlanOptions
	// Create names the custom audience to create for the upload (then
	// Plan.AudienceID is empty).
	Create string
	// Name is the input as people know it (a path, "the query's result").
	Name string
	// Wait sends the batches in this process and writes the report.
	Wait bool
	// Again is the command that uploads the same input to audience id,
	// suggested when Create's name is taken.
	Again func(id string) string
}

// UploadAudience is adsync audience upload: it checks the source (a file
// before the database is opened, a query on adsync's database once it is),
// creates the audience of Create or continues with the one created for
// the same input, writes the plan and records it with its batches queued;
// with Wait it sends them here and writes the report, and a failed batch is
// an error. A source no user can be read from, or an account the
// credentials cannot reach, is an *InputError: nothing was created,
// recorded or sent.
func (l *Local) UploadAudience(ctx context.Context, u AudienceUpload) error {
	o := u.Plan
	if o.Query == "" {
		if err := audience.CheckSource(ctx, nil, o); err != nil {
			return inputError(fmt.Errorf("audience upload: %w", err))
		}
	}
	deps, err := l.Open(ctx)
	if err != nil {
		return fmt.Errorf("audience upload: %w", err)
	}
	if o.Query != "" {
		if err := audience.CheckSource(ctx, deps.Pool, o); err != nil {
			return inputError(fmt.Errorf("audience upload: %w", err))
		}
	}
	if o.AudienceID != "" {
		// With Create, the create call itself answers 404 for such an
		// account, and says so without a request more.
		if err := l.checkAccounts(ctx, deps, "audience upload: --account", []string{o.AccountID}); err != nil {
			return err
		}
	}
	inserter, err := l.Inserter(deps)
	if err != nil {
		return err
	}
	o.Enqueue = AudienceEnqueuer(inserter)
	if u.Create != "" {
		if o.AudienceID, err = l.createForUpload(ctx, deps, u); err != nil {
			return err
		}
	}
	audienceID := o.AudienceID
	o.Review = func(res *audience.PlanResult) { audience.WritePlan(l.Out, audienceID, o.Mode, o.Operation, res) }
	res, err := audience.Plan(ctx, deps.Pool, o)
	if err != nil {
		return inputError(err)
	}
	if !l.writeOutcome(u, audienceID, res) || !u.Wait {
		return nil
	}
	return l.waitUpload(ctx, deps, res.Upload.ID)
}

// createForUpload creates the audience of u.Create, or finds the one an
// earlier run created for the same input, and returns its id.
func (l *Local) createForUpload(ctx context.Context, deps *Deps, u AudienceUpload) (string, error) {
	id, created, err := audience.CreateForUpload(ctx, deps.Pool, deps.API, u.Create, u.Plan)
	var dup *audience.DuplicateNameError
	if errors.As(err, &dup) && dup.ExistingID != "" {
		return "", fmt.Errorf("audience upload: --create: %w; upload to it with: %s", dup, u.Again(dup.ExistingID))
	}
	if errors.Is(err, api.ErrNotFound) {
		return "", inputErrorf("audience upload: --account: %s", ads.Unreachable(u.Plan.AccountID))
	}
	if err != nil {
		return "", fmt.Errorf("audience upload: --create: %w", err)
	}
	if created {
		fmt.Fprintf(l.Out, "created custom audience %s (%q)\n", id, u.Create)
	} else {
		fmt.Fprintf(l.Out, "continuing with custom audience %s (%q), created by adsync for this input\n", id, u.Create)
	}
	return id, nil
}

// writeOutcome says what the plan did, and whether it left batches for a
// worker (or Wait) to send.
func (l *Local) writeOutcome(u AudienceUpload, audienceID string, res *audience.PlanResult) (queued bool) {
	up := res.Upload
	switch {
	case res.Outcome == audience.Skipped:
		fmt.Fprintf(l.Out, "skipped: %s was already uploaded to audience %s as upload %d (%s, %s); --force uploads it again\n",
			u.Name, audienceID, up.ID, up.Operation, up.Mode)
		return false
	case res.Outcome == audience.Resumed && u.Plan.DryRun:
		fmt.Fprintf(l.Out, "dry run: upload %d of %s is unfinished; the same command without --dry-run resumes it\n", up.ID, u.Name)
		return false
	case res.Outcome == audience.Previewed:
		fmt.Fprintln(l.Out, "dry run: nothing recorded or sent")
		return false
	case res.Outcome == audience.Empty:
		fmt.Fprintf(l.Out, "nothing to upload: %s has no valid user (%d rows read, %d invalid), so --op %s changes nothing; nothing recorded or sent\n",
			u.Name, res.Report.RowsRead, res.Report.RowsInvalid, u.Plan.Operation)
		return false
	case res.Outcome == audience.Resumed:
		fmt.Fprintf(l.Out, "resuming upload %d of %s: batches already done are not sent again\n", up.ID, u.Name)
	default:
		fmt.Fprintf(l.Out, "upload %d: %d rows read, %d invalid, %d adds and %d deletes in %d batches to audience %s\n",
			up.ID, up.RowsRead, up.RowsInvalid, res.Summary.Adds, res.Summary.Deletes, res.Batches, audienceID)
	}
	if !u.Wait && up.State == audience.StatePlanned {
		fmt.Fprintln(l.Out, "queued: 'adsync worker' sends the batches")
	}
	return true
}

// AudienceSync shapes SyncAudience.
type AudienceSync struct {
	// DryRun writes the plan and whether it would be refused, and records,
	// creates and sends nothing; Force lets a replace delete more than its
	// max_delete; Wait sends the batches here and writes the report.
	DryRun, Force, Wait bool
}

// SyncAudience runs the configured audience def now, as its schedule
// does (adsync audience sync NAME, and each audience of adsync run): it
// writes the plan and what the run did, and with o.Wait sends the batches
// here and writes the report.
func (l *Local) SyncAudience(ctx context.Context, def audience.Definition, o AudienceSync) error {
	deps, err := l.Open(ctx)
	if err != nil {
		return fmt.Errorf("audience sync: %w", err)
	}
	inserter, err := l.Inserter(deps)
	if err != nil {
		return err
	}
	res, err := audience.Sync(ctx, deps.Pool, audience.SyncOptions{
		Definition: def, DryRun: o.DryRun, Force: o.Force,
		Review: func(r *audience.PlanResult) {
			target := def.Target()
			if r.Upload != nil {
				target = r.Upload.AudienceID
			}
			audience.WritePlan(l.Out, target, def.Mode, audience.OperationUpdate, r)
		},
		ClientFor: func(context.Context, string) (*api.Client, error) { return deps.API, nil },
		Enqueue:   AudienceEnqueuer(inserter), Workers: runtime.GOMAXPROCS(0),
	})
	if err != nil {
		return err
	}
	audience.WriteSyncResult(l.Out, def, res, o.DryRun)
	if !res.Sends() || o.DryRun {
		return nil
	}
	if !o.Wait {
		fmt.Fprintln(l.Out, "queued: 'adsync worker' sends the batches")
		return nil
	}
	return l.waitUpload(ctx, deps, res.Plan.Upload.ID)
}

// waitUpload runs a worker in this process (no schedules: it only helps
// the queues) until upload id is finished, drawing a progress bar on
// Progress, then writes the upload's report; a failed batch is an error.
func (l *Local) waitUpload(ctx context.Context, deps *Deps, id int64) error {
	_, stop, err := l.Work(ctx, deps, false)
	if err != nil {
		return err
	}
	defer func() { _ = stop(localStopTimeout) }()
	var bar *progressbar.ProgressBar
	p, err := audience.Await(ctx, deps.Pool, id, func(p audience.Progress) {
		if l.Progress != nil && bar == nil {
			bar = progressbar.NewOptions64(max(p.Users, 1), progressbar.OptionSetWriter(l.Progress), progressbar.OptionSetDescription("users"),
				progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
		}
		if bar != nil {
			_ = bar.Set64(p.UsersDone)
		}
	})
	if err != nil {
		return err
	}
	if bar != nil {
		_ = bar.Finish()
	}
	up, err := audience.LoadUpload(ctx, deps.Pool, id)
	if err != nil {
		return err
	}
	audience.WriteUploadReport(l.Out, up, p)
	if p.Failed > 0 {
		return fmt.Errorf("audience upload %d: %d of %d batches failed (see audience_batches.last_error and audience_batch_errors)", id, p.Failed, p.Batches)
	}
	return nil
}
