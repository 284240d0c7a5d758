package adsynccmd

import (
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
			return a.local().FetchPosts(cmd.Context(), jobs.PostsFetchArgs{IDs: ids, FromAds: fromAds}, wait)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&ids, "ids", nil, "post ids, comma-separated")
	f.BoolVar(&fromAds, "from-ads", false, "fetch the posts of the advertising sync (posts and promoted_posts)")
	f.BoolVar(&wait, "wait", false, "run the job in this process and print a summary")
	return cmd
}
