package adsynccmd

import (
	"errors"

	"github.com/adsync/adsync/sync/access"
	"github.com/spf13/cobra"
)

// listCap is how many items adsync status names in a listing before "...
// and N more" (auth list's is sync/access's).
const listCap = 20

func (a *app) authAddCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "add < FILE",
		Short: "Store other users' access tokens, read from standard input (TOKEN SECRET [SCREEN_NAME] per line), after checking each",
		Long: `Add users the deployment acts for (an agency's clients, colleagues who reach other
ad accounts) from access tokens obtained elsewhere. Standard input holds one user per
line:

  TOKEN SECRET [SCREEN_NAME]

separated by spaces or tabs; blank lines and lines starting with # are skipped.
Tokens are read only from standard input, never from flags or arguments, so they stay
out of the shell's history and the process list:

  adsync auth add < tokens.txt

Each token is checked with the service first: adsync lists the accounts it reaches (the
first page is one signed call) and learns whose token it is. The service's answers name
no screen name for a token: give it as the third field to see it in adsync auth list
(a user already known keeps the screen name adsync had). A token the service accepts is
stored in Postgres, encrypted with ADSYNC_SECRET_KEY, and recorded with the accounts it
reaches; it prints one line per user, never the token or its secret.

A line that is not a pair, a line longer than 1 MiB, or a token the service refuses, is
reported on stderr with its line number (and the user id when the token names it), never
its content. Every
line is processed: the good ones are stored, and the command then exits with status 2
if any line was refused. The workers pick up new tokens within a minute.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lines, err := access.ReadTokenLines(a.stdin)
			if err != nil {
				return err
			}
			if len(lines) == 0 {
				return usageError("auth add: no tokens on standard input: give one TOKEN SECRET [SCREEN_NAME] line per user (adsync auth add < tokens.txt)")
			}
			tokens, app, err := a.tokenStore(cmd.Context())
			if err != nil {
				return err
			}
			err = access.Onboarding{Tokens: tokens, App: app, Out: a.stdout, Err: a.stderr}.Add(cmd.Context(), lines)
			if refused := (*access.RefusedLinesError)(nil); errors.As(err, &refused) {
				return &exitCodeError{code: exitUsage, err: err}
			}
			return err
		},
	}
}

func (a *app) authListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the users the deployment acts for: state, accounts reached with the role on each, last use (never a secret)",
		Long: `List every user adsync knows: the users of the stored tokens (adsync auth login, adsync
auth add) and of the configured ADSYNC_ACCESS_TOKEN once a run used it. For each: its
state (ok; revoked or refused once the service stopped accepting its token, with the
service's reason), how many accounts its token reaches, when a run last chose it for an
account, then the accounts as ACCOUNT:ROLE (? when its role was not read yet; the first
20). It needs only the database: no ADSYNC_SECRET_KEY, and it prints no token or secret.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if !a.hasDatabase() {
				return errNoDatabase
			}
			pool, err := a.connect(ctx)
			if err != nil {
				return err
			}
			return access.List(ctx, pool, a.stdout)
		},
	}
}
