package adsynccmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/riverqueue/river/rivertype"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/posts"
	"github.com/spf13/cobra"
)

// postsCommand is the parent of the v2 posts commands.
func (a *app) postsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "posts", Short: "Hydrate v2 posts with their metrics, media and authors"}
	cmd.AddCommand(a.postsFetchCommand())
	return cmd
}

func (a *app) postsFetchCommand() *cobra.Command {
	var (
		ids           []string
		fromAds, wait bool
	)
	cmd := &cobra.Command{
		Use:   "fetch",
		Short: "Queue a v2 posts fetch (--ids or --from-ads); --wait runs it here and prints a summary",
		Long: `Queue a posts_fetch job for the given post ids, or for the posts the advertising
sync stored (published posts and promoted posts). Lookups carry at most 100 ids under
the app-only bearer token; posts, media and users are upserted, ids the service cannot
find are recorded as not found in v2_post_status, and today's metrics land in
post_metrics_daily. With --wait the job runs in this process and a summary is printed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (len(ids) > 0) == fromAds {
				return usageError("posts fetch: give exactly one of --ids or --from-ads")
			}
			if _, err := posts.CheckIDs(ids); err != nil {
				return usageError("posts fetch: --ids: %v", err)
			}
			ctx := cmd.Context()
			deps, err := a.pipeline(ctx)
			if err != nil {
				return err
			}
			args := jobs.PostsFetchArgs{IDs: ids, FromAds: fromAds}
			if fromAds {
				// Fail here rather than queue a job that cannot run.
				if _, err := posts.AdsPostIDs(ctx, deps.Pool); err != nil {
					return err
				}
			}
			if wait {
				return a.postsFetchWait(ctx, deps, args)
			}
			client, err := a.inserter(deps)
			if err != nil {
				return err
			}
			res, err := client.Insert(ctx, args, nil)
			if err != nil {
				return fmt.Errorf("queueing the posts fetch: %w", err)
			}
			if res.UniqueSkippedAsDuplicate {
				fmt.Fprintf(a.stdout, "an equal posts fetch is already queued as job %d\n", res.Job.ID)
				return nil
			}
			fmt.Fprintf(a.stdout, "queued posts fetch job %d; a worker runs it (adsync worker)\n", res.Job.ID)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&ids, "ids", nil, "post ids, comma-separated")
	f.BoolVar(&fromAds, "from-ads", false, "fetch the posts of the advertising sync (posts and promoted_posts)")
	f.BoolVar(&wait, "wait", false, "run the job in this process and print a summary")
	return cmd
}

// postsFetchWait runs args on an in-process worker (no schedules) and
// prints the job's summary.
func (a *app) postsFetchWait(ctx context.Context, deps *jobs.Deps, args jobs.PostsFetchArgs) error {
	inserter, err := a.inserter(deps)
	if err != nil {
		return err
	}
	_, stop, err := a.startWorking(ctx, deps, false)
	if err != nil {
		return err
	}
	defer func() { _ = stop(30 * time.Second) }()
	res, err := inserter.Insert(ctx, args, nil)
	if err != nil {
		return fmt.Errorf("queueing the posts fetch: %w", err)
	}
	// Any worker may run the job (this process or a daemon): follow it in
	// the database until it ends, retries included.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	reported := 0
	for {
		job, err := inserter.JobGet(ctx, res.Job.ID)
		if err != nil {
			return fmt.Errorf("following posts fetch job %d: %w", res.Job.ID, err)
		}
		lastErr := "unknown error"
		if n := len(job.Errors); n > 0 {
			lastErr = job.Errors[n-1].Error
			if n > reported && job.State == rivertype.JobStateRetryable {
				fmt.Fprintf(a.stderr, "posts fetch job %d: attempt %d failed, retrying: %s\n", job.ID, job.Attempt, lastErr)
				reported = n
			}
		}
		switch job.State {
		case rivertype.JobStateCompleted:
			var sum posts.Summary
			if err := json.Unmarshal(job.Output(), &sum); err != nil {
				return fmt.Errorf("posts fetch job %d: reading its summary: %w", job.ID, err)
			}
			printPostsSummary(a, sum)
			return nil
		case rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
			return errors.New("posts fetch: " + strings.TrimPrefix(lastErr, "JobCancelError: "))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("posts fetch job %d: stopped waiting (it stays queued): %w", res.Job.ID, ctx.Err())
		case <-tick.C:
		}
	}
}

func printPostsSummary(a *app, s posts.Summary) {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "requested\t%d\nfound\t%d\nnot found\t%d\nmedia\t%d\nusers\t%d\n", s.Requested, s.Found, s.NotFound, s.Media, s.Users)
	_ = tw.Flush()
	if len(s.NotFoundIDs) > 0 {
		fmt.Fprintf(a.stdout, "not found: %s\n", strings.Join(s.NotFoundIDs, ", "))
	}
}
