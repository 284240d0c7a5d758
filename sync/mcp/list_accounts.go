package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListAccountsInput takes no arguments.
type ListAccountsInput struct{}

// listAccountsSQL reads every synced account with its currency (its funding
// instruments', a live one first, as the reports take it), the users'
// access, and how fresh its entities (the sync's bookmarks) and analytics
// (ad_stats) are.
const listAccountsSQL = `SELECT a.id AS account_id, a.name, a.timezone,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = a.id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    a.approval_status, a.deleted, a.inaccessible_since,
    coalesce((SELECT jsonb_agg(jsonb_build_object('user_id', u.user_id, 'permissions', u.permissions) ORDER BY u.user_id)
        FROM account_user_access u WHERE u.account_id = a.id AND NOT u.deleted), '[]') AS user_access,
    (SELECT min(b.last_success_at) FROM sync_bookmarks b WHERE b.account_id = a.id) AS entities_synced_oldest,
    (SELECT max(b.last_success_at) FROM sync_bookmarks b WHERE b.account_id = a.id) AS entities_synced_newest,
    (SELECT max(s.fetched_at) FROM ad_stats s WHERE s.account_id = a.id) AS analytics_fetched_at,
    (SELECT max(s.bucket_date) FROM ad_stats s WHERE s.account_id = a.id AND s.granularity = 'DAY') AS analytics_last_day
FROM accounts a
ORDER BY a.deleted, a.id`

var listAccountsColumns = []string{"account_id", "name", "timezone", "currency", "deleted", "entities_synced_newest",
	"analytics_last_day"}

func (s *server) addListAccounts(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "list_accounts",
		Title: "List the advertising accounts",
		Description: "Lists every advertising account adsync syncs: id, name, time zone (performance dates are " +
			"account-local days), currency, the users' access, whether it was deleted or is out of reach, and how " +
			"fresh its data is (entities_synced_oldest/newest: when the sync last completed its entities; " +
			"analytics_fetched_at and analytics_last_day: the newest analytics pulled). Call it first to learn " +
			"the account ids other tools take.",
		Annotations: readOnly(),
	}, func(ctx context.Context, _ *sdk.CallToolRequest, _ ListAccountsInput) (*sdk.CallToolResult, Answer, error) {
		ans, err := s.query(ctx, listAccountsSQL)
		if err != nil {
			return nil, Answer{}, err
		}
		return result("accounts", listAccountsColumns, ans), ans, nil
	})
}

// readOnly are the annotations of every tool: it changes nothing and
// answers from adsync's own database.
func readOnly() *sdk.ToolAnnotations {
	f := false
	return &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}
}
