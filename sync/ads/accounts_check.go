package ads

import (
	"context"
	"net/url"
	"slices"

	"github.com/adsync/adsync/sync/api"
)

// UnknownAccounts returns the ids, in the order given, that the user's
// account list does not hold: mistyped, or out of these credentials' reach.
// It asks the service once per 200 ids (account_ids filter, deleted
// accounts included: a deleted account is known and syncs as a tombstone),
// so a command can refuse a typo before it queues one failing unit per
// entity for it.
func UnknownAccounts(ctx context.Context, c *api.Client, ids []string) ([]string, error) {
	known := map[string]bool{}
	lr := api.ListRequest{Base: api.BaseAds, Path: "/12/accounts", Endpoint: "GET /12/accounts",
		Query: url.Values{"with_deleted": {"true"}}}
	for page, err := range api.PagesByIDs[struct {
		ID string `json:"id"`
	}](ctx, c, lr, "account_ids", slices.Compact(slices.Sorted(slices.Values(ids)))) {
		if err != nil {
			return nil, err
		}
		for _, a := range page.Items {
			known[a.ID] = true
		}
	}
	var unknown []string
	for _, id := range ids {
		if !known[id] && !slices.Contains(unknown, id) {
			unknown = append(unknown, id)
		}
	}
	return unknown, nil
}
