package adsynccmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/posts"
	"github.com/riverqueue/river"
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
			client, err := a.riverClient(deps, false)
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
	inserter, err := a.riverClient(deps, false)
	if err != nil {
		return err
	}
	client, stop, err := a.startWorking(ctx, deps, false)
	if err != nil {
		return err
	}
	defer func() { _ = stop(30 * time.Second) }()
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed)
	defer cancel()
	res, err := inserter.Insert(ctx, args, nil)
	if err != nil {
		return fmt.Errorf("queueing the posts fetch: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-events:
			if ev.Job.ID != res.Job.ID {
				continue
			}
			if ev.Kind != river.EventKindJobCompleted {
				msg := "unknown error"
				if n := len(ev.Job.Errors); n > 0 {
					msg = ev.Job.Errors[n-1].Error
				}
				if ev.Kind == river.EventKindJobFailed && ev.Job.State == "retryable" {
					return fmt.Errorf("posts fetch job %d failed (a worker will retry it): %s", ev.Job.ID, msg)
				}
				return errors.New("posts fetch: " + strings.TrimPrefix(msg, "JobCancelError: "))
			}
			var sum posts.Summary
			if err := json.Unmarshal(ev.Job.Output(), &sum); err != nil {
				return fmt.Errorf("posts fetch job %d: reading its summary: %w", ev.Job.ID, err)
			}
			printPostsSummary(a, sum)
			return nil
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
