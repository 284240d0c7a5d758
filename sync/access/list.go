package access

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// listCap is how many accounts a user's listing names before "... and N
// more".
const listCap = 20

// List writes adsync auth list's table of every user adsync knows to w:
// one aligned row per user, each followed by its indented detail lines
// (the accounts it reaches with its role on each, and why it is not
// usable). It never prints a token or secret.
func List(ctx context.Context, db DB, w io.Writer) error {
	users, err := ListUsers(ctx, db)
	if err != nil {
		return fmt.Errorf("auth list: %w", err)
	}
	if len(users) == 0 {
		_, err := fmt.Fprintln(w, "no users yet: add tokens with adsync auth add (TOKEN SECRET [SCREEN_NAME] lines on standard input) or sign in with adsync auth login")
		return err
	}
	rows, err := userRows(users)
	if err != nil {
		return err
	}
	var out strings.Builder
	out.WriteString(rows[0])
	for i, u := range users {
		out.WriteString(rows[i+1])
		writeUserDetails(&out, u)
	}
	_, err = fmt.Fprint(w, out.String())
	return err
}

// userRows are the header and one row per user, aligned together: the
// detail lines go under each afterwards, as a line without tabs would end
// tabwriter's column block.
func userRows(users []UserInfo) ([]string, error) {
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
		return nil, err
	}
	return strings.SplitAfter(table.String(), "\n"), nil
}

// writeUserDetails writes u's accounts as ACCOUNT:ROLE (? when its role
// was not read yet; the first listCap), and the reason of a state other
// than ok.
func writeUserDetails(out *strings.Builder, u UserInfo) {
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
		fmt.Fprintf(out, "  accounts: %s ... and %d more\n", strings.Join(pairs, " "), len(u.Accounts)-listCap)
	default:
		fmt.Fprintf(out, "  accounts: %s\n", strings.Join(pairs, " "))
	}
	if u.State != "ok" && u.Reason != "" {
		fmt.Fprintf(out, "  %s: %s\n", u.State, oneLine(u.Reason))
	}
}
