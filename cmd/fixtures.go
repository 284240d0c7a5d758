package adsynccmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localfake"
	"github.com/spf13/cobra"
)

// demoFakeDataFlags are the flags of fixtures serve that change the fake's
// data or credentials: the demo's shared fake keeps the defaults.
var demoFakeDataFlags = []string{"seed", "accounts", "campaigns", "line-items", "cards", "posts", "audiences", "media",
	"consumer-key", "consumer-secret", "owner-token", "owner-secret", "audience-file", "users"}

// changedFlags lists the flags of names given on cmd's command line, as --NAME.
func changedFlags(cmd *cobra.Command, names []string) []string {
	var out []string
	for _, n := range names {
		if cmd.Flags().Changed(n) {
			out = append(out, "--"+n)
		}
	}
	return out
}

// serveFake serves a fake of its own on addr until ctx is done, writing
// the address to addrFile once listening (when given). In the demo's
// directory it says, on stderr, that the demo's commands keep using the
// shared fake when one runs.
func (a *app) serveFake(ctx context.Context, addr string, opts fixtures.Options, addrFile string) error {
	if demoDatabaseHere() {
		localfake.SayAnotherRuns(ctx, demoFakeDir, a.stderr)
	}
	ln, err := fixtures.Listen(ctx, addr, addrFile)
	if err != nil {
		return err
	}
	return fixtures.ServeOn(ctx, ln, opts, func(format string, args ...any) { fmt.Fprintf(a.stdout, format+"\n", args...) })
}

func (a *app) fixturesCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "fixtures", Short: "The fake service every test and the demo talk to"}
	cmd.AddCommand(a.fixturesServeCommand())
	return cmd
}

func (a *app) fixturesServeCommand() *cobra.Command {
	opts := fixtures.DefaultOptions()
	var addr, addrFile string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the fake service (API, ads and sandbox bases on one listener) until interrupted",
		Long: `Serve the fake service until interrupted. Point a client at it with
  ADSYNC_API_URL=http://ADDR  ADSYNC_ADS_URL=http://ADDR/ads  ADSYNC_SANDBOX_ADS_URL=http://ADDR/sandbox
and the default credentials (see --help of the credential flags). Ground truth and fault
injection are under http://ADDR/_fixtures/.

In the demo's directory (where adsync run left .adsync/), without --addr it is about the
demo's shared fake, the one every adsync command run there uses: when it runs, this says
where (URL and pid) and exits 0; when none runs, it serves it here on 127.0.0.1:8080,
with the audiences the demo's earlier fakes kept, until interrupted (adsync commands use
it and never stop it). With --addr it serves a fake of its own, never the demo's.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Accounts < 1 || opts.CampaignsPerAccount < 0 || opts.CardsPerAccount < 0 || opts.LineItemsPerCampaign < 0 ||
				opts.PostsPerAccount < 0 || opts.AudiencesPerAccount < 0 || opts.MediaPerAccount < 0 || opts.Users < 0 {
				return usageError("fixtures serve: --accounts must be at least 1 and other sizes (--users too) at least 0")
			}
			if err := fixtures.FromEnv(&opts); err != nil {
				return usageError("fixtures serve: %v", err)
			}
			if !cmd.Flags().Changed("addr") && demoDatabaseHere() {
				if changed := changedFlags(cmd, demoFakeDataFlags); len(changed) > 0 {
					return usageError("fixtures serve: in the demo's directory, without --addr, it serves the demo's shared fake, "+
						"with its generated data and credentials: pass --addr to serve a fake of your own with %s", strings.Join(changed, ", "))
				}
				var err error
				if opts.Anchor, err = demoAnchor(demoAnchorFile, time.Now()); err != nil {
					return err
				}
				return localfake.ServeShared(cmd.Context(), demoFakeDir, addr, addrFile, opts, a.stdout)
			}
			return a.serveFake(cmd.Context(), addr, opts, addrFile)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "listen address (HOST:PORT; port 0 picks a free one); in the demo's directory, "+
		"without it: the demo's shared fake (where it runs, or served here on 127.0.0.1:8080)")
	f.StringVar(&opts.AudienceFile, "audience-file", "", "keep the custom audiences and their members in this file across restarts "+
		"(loaded at start, written after each change)")
	f.StringVar(&addrFile, "addr-file", "", "write the address listened on (HOST:PORT) to this file once listening")
	f.Int64Var(&opts.Seed, "seed", opts.Seed, "seed of the generated data")
	f.IntVar(&opts.Accounts, "accounts", opts.Accounts, "ad accounts")
	f.IntVar(&opts.CampaignsPerAccount, "campaigns", opts.CampaignsPerAccount, "campaigns per account")
	f.IntVar(&opts.LineItemsPerCampaign, "line-items", opts.LineItemsPerCampaign, "line items per campaign")
	f.IntVar(&opts.CardsPerAccount, "cards", opts.CardsPerAccount, "cards per account")
	f.IntVar(&opts.PostsPerAccount, "posts", opts.PostsPerAccount, "posts per account")
	f.IntVar(&opts.AudiencesPerAccount, "audiences", opts.AudiencesPerAccount, "custom audiences per account")
	f.IntVar(&opts.MediaPerAccount, "media", opts.MediaPerAccount, "media per account")
	f.IntVar(&opts.Users, "users", opts.Users, "users besides the owner, each with its own token and a role on a seeded subset "+
		"of the accounts (tokens and secrets: GET /_fixtures/users)")
	f.StringVar(&opts.ConsumerKey, "consumer-key", opts.ConsumerKey, "the application's consumer key")
	f.StringVar(&opts.ConsumerSecret, "consumer-secret", opts.ConsumerSecret, "the application's consumer secret")
	f.StringVar(&opts.OwnerToken, "owner-token", opts.OwnerToken, "the application owner's access token")
	f.StringVar(&opts.OwnerSecret, "owner-secret", opts.OwnerSecret, "the application owner's access token secret")
	f.StringSliceVar(&opts.Callbacks, "callback", opts.Callbacks, "callback URLs configured for the application (repeatable)")
	f.BoolVar(&opts.AllowLoopbackCallbacks, "allow-loopback-callbacks", opts.AllowLoopbackCallbacks, "also accept any http://127.0.0.1:PORT/ callback")
	f.BoolVar(&opts.SignInWithEnabled, "sign-in-with", opts.SignInWithEnabled, "the application's sign-in setting (authenticate skips approval for returning users)")
	f.IntVar(&opts.BearerRequestLimit, "bearer-limit", opts.BearerRequestLimit, "bearer token requests allowed per window before 403 code 99")
	f.BoolVar(&opts.RateLimits.Disabled, "rate-limits-off", false, "serve without rate limits")
	f.DurationVar(&opts.RateLimits.Window, "rate-window", opts.RateLimits.Window, "default rate-limit window")
	f.IntVar(&opts.RateLimits.Limit, "rate-limit", opts.RateLimits.Limit, "default requests per window and endpoint")
	f.IntVar(&opts.RateLimits.AudienceUsersLimit, "audience-limit", opts.RateLimits.AudienceUsersLimit, "audience user requests per audience window")
	f.DurationVar(&opts.RateLimits.AudienceUsersWindow, "audience-window", opts.RateLimits.AudienceUsersWindow, "audience user requests window")
	return cmd
}
