package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// AudiencesInput is what the audiences tool takes.
type AudiencesInput struct {
	AccountIDs []string `json:"account_ids,omitempty" jsonschema:"account ids (from list_accounts); default every account"`
	Name       string   `json:"name,omitempty" jsonschema:"part of the audience's name, case-insensitive"`
	Uploads    int      `json:"uploads,omitempty" jsonschema:"how many of each audience's latest uploads to show (default 3, at most 20)"`
}

// audiencesSQL reads the live custom audiences ($1 account ids, $2 a name
// part) with their sizes and their $3 latest uploads: outcome, users and
// batches, and the last batch error (credentials never reach it: batches
// record the service's answer).
const audiencesSQL = `SELECT a.account_id, a.id AS audience_id, a.name, a.audience_type, a.audience_size, a.targetable,
    a.reasons_not_targetable, a.permission_level, a.last_synced_at,
    coalesce((SELECT jsonb_agg(u ORDER BY u.upload_id DESC) FROM (
        SELECT up.id AS upload_id, up.operation, up.mode, up.state, up.rows_read, up.rows_invalid, up.users,
            up.created_at, up.finished_at,
            (SELECT count(*) FROM audience_batches b WHERE b.upload_id = up.id) AS batches,
            (SELECT count(*) FROM audience_batches b WHERE b.upload_id = up.id AND b.state = 'done') AS batches_done,
            (SELECT count(*) FROM audience_batches b WHERE b.upload_id = up.id AND b.state = 'failed') AS batches_failed,
            (SELECT b.last_error FROM audience_batches b WHERE b.upload_id = up.id AND b.last_error IS NOT NULL
                ORDER BY b.seq DESC LIMIT 1) AS last_error
        FROM audience_uploads up WHERE up.account_id = a.account_id AND up.audience_id = a.id
        ORDER BY up.id DESC LIMIT $3) u), '[]') AS uploads
FROM custom_audiences a
WHERE NOT a.deleted AND ($1::text[] IS NULL OR a.account_id = ANY($1::text[]))
    AND ($2::text = '' OR a.name ILIKE '%' || replace(replace(replace($2, '\', '\\'), '%', '\%'), '_', '\_') || '%')
ORDER BY a.account_id, lower(a.name), a.id`

func (s *server) addAudiences(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "audiences",
		Title: "Show custom audiences and their uploads",
		Description: "Lists the custom audiences synced from the service: name, type, size as the service reports " +
			"it (audience_size; the service reports no size for small audiences), whether it is targetable and " +
			"why not, and its latest uploads through adsync (operation, mode, state planned/done/failed, rows " +
			"read and invalid, users, batches done and failed, the last batch error).",
		Annotations: readOnly(),
	}, s.audiences)
}

// audiences answers the audiences tool.
func (s *server) audiences(ctx context.Context, _ *sdk.CallToolRequest, in AudiencesInput) (*sdk.CallToolResult, Answer, error) {
	n := in.Uploads
	if n == 0 {
		n = 3
	}
	if n < 0 || n > 20 {
		return nil, Answer{}, inputErrorf("uploads %d: want 1 to 20", in.Uploads)
	}
	ans, err := s.query(ctx, audiencesSQL, in.AccountIDs, in.Name, n)
	if err != nil {
		return nil, Answer{}, err
	}
	return result("custom audiences", []string{"account_id", "audience_id", "name", "audience_size", "targetable", "uploads"}, ans), ans, nil
}
