package access

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/sync/api"
)

// TokenLine is one line of adsync auth add's input that is neither blank
// nor a comment: TOKEN SECRET [SCREEN_NAME].
type TokenLine struct {
	n      int // line number, from 1
	fields []string
	// tooLong says the line was longer than hashing.DefaultMaxLineBytes
	// (its fields were not kept): it is refused as a bad line is.
	tooLong bool
}

// ReadTokenLines reads adsync auth add's input: every line that is neither
// blank nor a comment. A line over the limit is kept as a refused line, and
// the lines after it are read.
func ReadTokenLines(r io.Reader) ([]TokenLine, error) {
	var lines []TokenLine
	lr := hashing.NewLineReader(r, hashing.DefaultMaxLineBytes)
	for {
		b, n, tooLong, err := lr.Next()
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return nil, fmt.Errorf("auth add: reading standard input at line %d: %w", n, err)
		}
		if tooLong {
			lines = append(lines, TokenLine{n: n, tooLong: true})
			continue
		}
		s := strings.TrimSpace(string(b))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		lines = append(lines, TokenLine{n: n, fields: strings.Fields(s)})
	}
}

// RefusedLinesError says some lines of adsync auth add's input were
// refused (each was reported where it was found).
type RefusedLinesError struct {
	Refused, Lines, Added int
}

func (e *RefusedLinesError) Error() string {
	return fmt.Sprintf("auth add: %d of %d lines refused (see above); %d users added", e.Refused, e.Lines, e.Added)
}

// Onboarding is what adsync auth add needs: the store of user tokens, the
// application's client (without a stored token) to check each token with,
// and where to say what it did (Out) and which lines it refused (Err).
type Onboarding struct {
	Tokens   api.PGUserTokenStore
	App      *api.Client
	Out, Err io.Writer
}

// Add checks each line's token with the service and stores those it
// accepts, encrypted, with the accounts they reach, saying so on Out; a
// refused line is reported on Err by its number, never its content. Every
// line is processed; a *RefusedLinesError then says how many were refused.
// Any other error (the database's, the context's) stops at its line.
func (o Onboarding) Add(ctx context.Context, lines []TokenLine) error {
	refused, added := 0, 0
	for _, l := range lines {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("auth add: stopped before line %d (%d users added): %w", l.n, added, context.Cause(ctx))
		}
		reason, err := o.add(ctx, l)
		if err != nil {
			return err
		}
		if reason != "" {
			refused++
			fmt.Fprintf(o.Err, "auth add: line %d: %s\n", l.n, reason)
			continue
		}
		added++
	}
	if refused > 0 {
		return &RefusedLinesError{Refused: refused, Lines: len(lines), Added: added}
	}
	return nil
}

// add checks and stores one line's token. It returns why the line is
// refused ("" when it was stored), never naming the token or secret; an
// error is a failure of adsync's own (the database), which stops the
// command.
func (o Onboarding) add(ctx context.Context, l TokenLine) (string, error) {
	token, secret, screen, reason := l.parse()
	if reason != "" {
		return reason, nil
	}
	tok := &api.Token{Token: token, Secret: secret}
	who := ""
	if id := api.TokenUserID(tok); id != "" {
		who = "user " + id + ": "
	}
	v, err := Verify(ctx, o.App.WithUserToken(tok))
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
	if screen, err = o.record(ctx, l, v, token, secret, screen); err != nil {
		return "", err
	}
	if screen == "" {
		screen = "-"
	}
	fmt.Fprintf(o.Out, "added user %s (@%s): reaches %d accounts; token stored encrypted\n", v.UserID, screen, len(v.Accounts))
	return "", nil
}

// parse splits the line into its token, secret and screen name (without
// its @), or says why it is refused.
func (l TokenLine) parse() (token, secret, screen, reason string) {
	if l.tooLong {
		return "", "", "", fmt.Sprintf("longer than %d bytes, the longest line read (the line is not shown: it may hold a secret)", hashing.DefaultMaxLineBytes)
	}
	if n := len(l.fields); n < 2 || n > 3 {
		fields := fmt.Sprintf("%d fields", n)
		if n == 1 {
			fields = "1 field"
		}
		return "", "", "", "expected TOKEN SECRET [SCREEN_NAME], found " + fields + " (the line is not shown: it may hold a secret)"
	}
	if len(l.fields) == 3 {
		screen = strings.TrimPrefix(l.fields[2], "@")
	}
	return l.fields[0], l.fields[1], screen, ""
}

// record stores the verified token and records its user as usable, with
// the accounts it reaches. A line without a screen name keeps the one
// adsync knows (from auth login or an earlier add), which it returns.
func (o Onboarding) record(ctx context.Context, l TokenLine, v Verified, token, secret, screen string) (string, error) {
	pool := o.Tokens.Pool
	if screen == "" {
		known, err := ScreenName(ctx, pool, v.UserID)
		if err != nil {
			return "", fmt.Errorf("auth add: line %d: reading user %s: %w", l.n, v.UserID, err)
		}
		screen = known
	}
	ut := api.UserToken{Token: token, Secret: secret, UserID: v.UserID, ScreenName: screen, AccessType: api.AccessWrite}
	if err := o.Tokens.Save(ctx, o.App.Credentials(), ut); err != nil {
		return "", fmt.Errorf("auth add: line %d: storing the token of user %s: %w", l.n, v.UserID, err)
	}
	// The service just accepted the token: a state recorded for this very
	// token (NoteUser keeps it) no longer holds.
	st, err := NoteUser(ctx, pool, v.UserID, screen, api.Fingerprint(token))
	if err == nil && st != "ok" {
		err = SetState(ctx, pool, v.UserID, "ok", "")
	}
	if err != nil {
		return "", fmt.Errorf("auth add: line %d: recording user %s: %w", l.n, v.UserID, err)
	}
	if err := RecordListed(ctx, pool, 0, v.UserID, v.Accounts); err != nil {
		return "", fmt.Errorf("auth add: line %d: recording the accounts of user %s: %w", l.n, v.UserID, err)
	}
	return screen, nil
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

// scrubSecrets removes the given secrets from s, on one line (the api
// package's errors name none; this keeps it so whatever the error).
func scrubSecrets(s string, secrets ...string) string {
	for _, v := range secrets {
		if v != "" {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
	}
	return oneLine(s)
}

// oneLine puts s on one line of at most 200 bytes, for a listing.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
