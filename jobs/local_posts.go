package jobs

import (
	"context"
	"fmt"

	"github.com/adsync/adsync/sync/posts"
)

// FetchPosts is adsync posts fetch: it queues the posts fetch of args
// for a worker, or with wait runs it here and writes its summary. Asked
// for the posts of the advertising sync before any sync stored them, it
// fails at once rather than queue a job that cannot run.
func (l *Local) FetchPosts(ctx context.Context, args PostsFetchArgs, wait bool) error {
	deps, err := l.Open(ctx)
	if err != nil {
		return err
	}
	if args.FromAds {
		if _, err := posts.AdsPostIDs(ctx, deps.Pool); err != nil {
			return err
		}
	}
	if wait {
		return l.fetchPostsHere(ctx, deps, args)
	}
	client, err := l.Inserter(deps)
	if err != nil {
		return err
	}
	res, err := client.Insert(ctx, args, nil)
	if err != nil {
		return fmt.Errorf("queueing the posts fetch: %w", err)
	}
	if res.UniqueSkippedAsDuplicate {
		fmt.Fprintf(l.Out, "an equal posts fetch is already queued as job %d\n", res.Job.ID)
		return nil
	}
	fmt.Fprintf(l.Out, "queued posts fetch job %d; a worker runs it (adsync worker)\n", res.Job.ID)
	return nil
}

// fetchPostsHere runs the posts fetch of args on a worker of this process
// and writes the job's summary.
func (l *Local) fetchPostsHere(ctx context.Context, deps *Deps, args PostsFetchArgs) error {
	var sum posts.Summary
	if err := l.runJob(ctx, deps, args, "posts fetch", &sum); err != nil {
		return err
	}
	sum.WriteText(l.Out)
	return nil
}
