package adsynccmd

import (
	"fmt"

	"github.com/adsync/adsync/fixtures"
	"github.com/spf13/cobra"
)

func (a *app) fixturesCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "fixtures", Short: "The fake service every test and the demo talk to"}
	cmd.AddCommand(a.fixturesServeCommand())
	return cmd
}

func (a *app) fixturesServeCommand() *cobra.Command {
	opts := fixtures.DefaultOptions()
	var addr string
	var rateLimitsOff bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the fake service (API, ads and sandbox bases on one listener) until interrupted",
		Long: `Serve the fake service until interrupted. Point a client at it with
  ADSYNC_API_URL=http://ADDR  ADSYNC_ADS_URL=http://ADDR/ads  ADSYNC_SANDBOX_ADS_URL=http://ADDR/sandbox
and the default credentials (see --help of the credential flags). Ground truth and fault
injection are under http://ADDR/_fixtures/.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Accounts < 1 || opts.CampaignsPerAccount < 0 || opts.CardsPerAccount < 0 || opts.LineItemsPerCampaign < 0 ||
				opts.PostsPerAccount < 0 || opts.AudiencesPerAccount < 0 || opts.MediaPerAccount < 0 {
				return usageError("fixtures serve: --accounts must be at least 1 and other sizes at least 0")
			}
			opts.RateLimits.Disabled = rateLimitsOff
			return fixtures.ListenAndServe(cmd.Context(), addr, opts, func(format string, args ...any) {
				fmt.Fprintf(a.stdout, format+"\n", args...)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "listen address (HOST:PORT; port 0 picks a free one)")
	f.Int64Var(&opts.Seed, "seed", opts.Seed, "seed of the generated data")
	f.IntVar(&opts.Accounts, "accounts", opts.Accounts, "ad accounts")
	f.IntVar(&opts.CampaignsPerAccount, "campaigns", opts.CampaignsPerAccount, "campaigns per account")
	f.IntVar(&opts.LineItemsPerCampaign, "line-items", opts.LineItemsPerCampaign, "line items per campaign")
	f.IntVar(&opts.CardsPerAccount, "cards", opts.CardsPerAccount, "cards per account")
	f.IntVar(&opts.PostsPerAccount, "posts", opts.PostsPerAccount, "posts per account")
	f.IntVar(&opts.AudiencesPerAccount, "audiences", opts.AudiencesPerAccount, "custom audiences per account")
	f.IntVar(&opts.MediaPerAccount, "media", opts.MediaPerAccount, "media per account")
	f.StringVar(&opts.ConsumerKey, "consumer-key", opts.ConsumerKey, "the application's consumer key")
	f.StringVar(&opts.ConsumerSecret, "consumer-secret", opts.ConsumerSecret, "the application's consumer secret")
	f.StringVar(&opts.OwnerToken, "owner-token", opts.OwnerToken, "the application owner's access token")
	f.StringVar(&opts.OwnerSecret, "owner-secret", opts.OwnerSecret, "the application owner's access token secret")
	f.StringSliceVar(&opts.Callbacks, "callback", opts.Callbacks, "callback URLs configured for the application (repeatable)")
	f.BoolVar(&opts.AllowLoopbackCallbacks, "allow-loopback-callbacks", opts.AllowLoopbackCallbacks, "also accept any http://127.0.0.1:PORT/ callback")
	f.BoolVar(&opts.SignInWithEnabled, "sign-in-with", opts.SignInWithEnabled, "the application's sign-in setting (authenticate skips approval for returning users)")
	f.IntVar(&opts.BearerRequestLimit, "bearer-limit", opts.BearerRequestLimit, "bearer token requests allowed per window before 403 code 99")
	f.BoolVar(&rateLimitsOff, "rate-limits-off", false, "serve without rate limits")
	f.DurationVar(&opts.RateLimits.Window, "rate-window", opts.RateLimits.Window, "default rate-limit window")
	f.IntVar(&opts.RateLimits.Limit, "rate-limit", opts.RateLimits.Limit, "default requests per window and endpoint")
	f.IntVar(&opts.RateLimits.AudienceUsersLimit, "audience-limit", opts.RateLimits.AudienceUsersLimit, "audience user requests per audience window")
	f.DurationVar(&opts.RateLimits.AudienceUsersWindow, "audience-window", opts.RateLimits.AudienceUsersWindow, "audience user requests window")
	return cmd
}
