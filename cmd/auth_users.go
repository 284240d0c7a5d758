package adsynccmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
)

// listCap is how many items a listing names before "... and N more".
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
			return a.addUserTokens(cmd.Context())
		},
	}
}

// tokenLine is one non-blank, non-comment line of auth add's input.
type tokenLine struct {
	n      int // line number, from 1
	fields []string
	// tooLong says the line was longer than hashing.DefaultMaxLineBytes
	// (its fields were not kept): it is refused as a bad line is.
	tooLong bool
}

// readTokenLines reads auth add's input: every line that is neither blank
// nor a comment. A line over the limit is kept as a refused line, and the
// lines after it are read.
func (a *app) readTokenLines() ([]tokenLine, error) {
	var lines []tokenLine
	lr := hashing.NewLineReader(a.stdin, hashing.DefaultMaxLineBytes)
	for {
		b, n, tooLong, err := lr.Next()
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return nil, fmt.Errorf("auth add: reading standard input at line %d: %w", n, err)
		}
		if tooLong {
			lines = append(lines, tokenLine{n: n, tooLong: true})
			continue
		}
		s := strings.TrimSpace(string(b))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		lines = append(lines, tokenLine{n: n, fields: strings.Fields(s)})
	}
}

// addUserTokens is adsync auth add.
func (a *app) addUserTokens(ctx context.Context) error {
	lines, err := a.readTokenLines()
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		return usageError("auth add: no tokens on standard input: give one TOKEN SECRET [SCREEN_NAME] line per user (adsync auth add < tokens.txt)")
	}
	store, err := a.tokenStore(ctx)
	if err != nil {
		return err
	}
	base, err := a.appClient(ctx, store.Pool)
	if err != nil {
		return err
	}
	refused, added := 0, 0
	for _, l := range lines {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("auth add: stopped before line %d (%d users added): %w", l.n, added, context.Cause(ctx))
		}
		reason, err := a.addUserToken(ctx, store, base, l)
		if err != nil {
			return err
		}
		if reason != "" {
			refused++
			fmt.Fprintf(a.stderr, "auth add: line %d: %s\n", l.n, reason)
			continue
		}
		added++
	}
	if refused > 0 {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("auth add: %d of %d lines refused (see above); %d users added", refused, len(lines), added)}
	}
	return nil
}

// addUserToken checks and stores one line's token. It returns why the line
// is refused ("" when it was stored), never naming the token or secret; an
// error is a failure of adsync's own (the database), which stops the
// command.
func (a *app) addUserToken(ctx context.Context, store api.PGUserTokenStore, base *api.Client, l tokenLine) (string, error) {
	if l.tooLong {
		return fmt.Sprintf("longer than %d bytes, the longest line read (the line is not shown: it may hold a secret)", hashing.DefaultMaxLineBytes), nil
	}
	if n := len(l.fields); n < 2 || n > 3 {
		fields := fmt.Sprintf("%d fields", n)
		if n == 1 {
			fields = "1 field"
		}
		return "expected TOKEN SECRET [SCREEN_NAME], found " + fields + " (the line is not shown: it may hold a secret)", nil
	}
	token, secret := l.fields[0], l.fields[1]
	screen := ""
	if len(l.fields) == 3 {
		screen = strings.TrimPrefix(l.fields[2], "@")
	}
	tok := &api.Token{Token: token, Secret: secret}
	who := ""
	if id := api.TokenUserID(tok); id != "" {
		who = "user " + id + ": "
	}
	v, err := access.Verify(ctx, base.WithUserToken(tok))
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("auth add: line %d: %w", l.n, context.Cause(ctx))
		}
		what := "the service refused the token: "
		if api.Explain(err).Status == 0 {
			what = "checking the token with the service: " // no answer of the service's
		}
		return who + what + scrubSecrets(refusal(err), token, secret), nil
	}
	pool := store.Pool
	if screen == "" {
		// Keep the screen name adsync knows (from auth login or an earlier add).
		err := pool.QueryRow(ctx, `SELECT screen_name FROM api_users WHERE user_id = $1`, v.UserID).Scan(&screen)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return "", fmt.Errorf("auth add: line %d: reading user %s: %w", l.n, v.UserID, err)
		}
	}
	ut := api.UserToken{Token: token, Secret: secret, UserID: v.UserID, ScreenName: screen, AccessType: api.AccessWrite}
	if err := store.Save(ctx, base.Credentials(), ut); err != nil {
		return "", fmt.Errorf("auth add: line %d: storing the token of user %s: %w", l.n, v.UserID, err)
	}
	// The service just accepted the token: a state recorded for this very
	// token (NoteUser keeps it) no longer holds.
	st, err := access.NoteUser(ctx, pool, v.UserID, screen, api.Fingerprint(token))
	if err == nil && st != "ok" {
		err = access.SetState(ctx, pool, v.UserID, "ok", "")
	}
	if err != nil {
		return "", fmt.Errorf("auth add: line %d: recording user %s: %w", l.n, v.UserID, err)
	}
	if err := access.RecordListed(ctx, pool, 0, v.UserID, v.Accounts); err != nil {
		return "", fmt.Errorf("auth add: line %d: recording the accounts of user %s: %w", l.n, v.UserID, err)
	}
	if screen == "" {
		screen = "-"
	}
	fmt.Fprintf(a.stdout, "added user %s (@%s): reaches %d accounts; token stored encrypted\n", v.UserID, screen, len(v.Accounts))
	return "", nil
}

// refusal says why the service refused a line's token: for the OAuth
// answers a line's token causes, what to check on the line rather than the
// api package's advice (which speaks of the application's keys and of
// auth login).
func refusal(err error) string {
	var oe *api.OAuthError
	if !errors.As(err, &oe) || oe.Status != http.StatusUnauthorized {
		return err.Error()
	}
	msg := fmt.Sprintf("%s: HTTP %d: code %d: %s", oe.Endpoint, oe.Status, oe.Code, oe.Message)
	switch oe.Code {
	case 32:
		return msg + " (check the line's token and secret; if every line is refused, the application's consumer key and secret)"
	case 89:
		return msg + " (the token was revoked or has expired)"
	}
	if fix := oe.Fix(); fix != "" {
		msg += " (" + fix + ")"
	}
	return msg
}

// scrubSecrets removes the given secrets from s (the api package's errors name
// none; this keeps it so whatever the error).
func scrubSecrets(s string, secrets ...string) string {
	for _, v := range secrets {
		if v != "" {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
	}
	return oneLine(s)
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
			users, err := access.ListUsers(ctx, pool)
			if err != nil {
				return fmt.Errorf("auth list: %w", err)
			}
			return a.printUsers(users)
		},
	}
}

// printUsers prints auth list's table: one aligned row per user, each
// followed by its indented detail lines.
func (a *app) printUsers(users []access.UserInfo) error {
	if len(users) == 0 {
		_, err := fmt.Fprintln(a.stdout, "no users yet: add tokens with adsync auth add (TOKEN SECRET [SCREEN_NAME] lines on standard input) or sign in with adsync auth login")
		return err
	}
	// The rows are aligned together, then the detail lines put under each:
	// a line without tabs would end tabwriter's column block.
	var table bytes.Buffer
	w := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "USER ID\tSCREEN NAME\tSTATE\tACCOUNTS\tLAST USED")
	for _, u := range users {
		screen, last := "-", "never"
		if u.ScreenName != "" {
			screen = "@" + u.ScreenName
		}
		if u.LastUsedAt != nil {
			last = u.LastUsedAt.UTC().Format("2006-01-02 15:04:05Z")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\n", u.UserID, screen, u.State, len(u.Accounts), last)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	rows := strings.SplitAfter(table.String(), "\n")
	var out strings.Builder
	out.WriteString(rows[0])
	for i, u := range users {
		out.WriteString(rows[i+1])
		pairs := make([]string, 0, min(len(u.Accounts), listCap))
		for _, ar := range u.Accounts[:min(len(u.Accounts), listCap)] {
			role := ar.Role
			if role == "" {
				role = "?"
			}
			pairs = append(pairs, ar.AccountID+":"+role)
		}
		switch {
		case len(u.Accounts) == 0:
			out.WriteString("  accounts: none recorded\n")
		case len(u.Accounts) > listCap:
			fmt.Fprintf(&out, "  accounts: %s ... and %d more\n", strings.Join(pairs, " "), len(u.Accounts)-listCap)
		default:
			fmt.Fprintf(&out, "  accounts: %s\n", strings.Join(pairs, " "))
		}
		if u.State != "ok" && u.Reason != "" {
			fmt.Fprintf(&out, "  %s: %s\n", u.State, oneLine(u.Reason))
		}
	}
	_, err := fmt.Fprint(a.stdout, out.String())
	return err
}
