package audience_test

import (
	"context"
	"testing"

	"github.com/adsync/adsync/sync/audience"
	"github.com/stretchr/testify/require"
)

func TestCreateForUploadContinuesOnlyWithTheAudienceItCreatedForTheSameFile(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	file := b.options(b.writeFile("users.csv", emailsCSV(0, 5)))
	other := b.options(b.writeFile("other.csv", emailsCSV(5, 5)))

	for _, tt := range []struct {
		name string
		// before leaves the name taken as a previous run (or someone else)
		// left it.
		before func(name string)
		o      audience.PlanOptions
		ours   bool
	}{
		{"the same file, planned", func(name string) {
			_, _, err := audience.CreateForUpload(ctx, b.pool, b.deps.API, name, file)
			require.NoError(t, err)
		}, file, true},
		{"killed before the service's answer was recorded", func(name string) {
			_, err := b.pool.Exec(ctx, `INSERT INTO audience_creates (account_id, name) VALUES ($1, $2)`, b.account, name)
			require.NoError(t, err)
			_, err = audience.CreateAudience(ctx, b.deps.API, b.account, name)
			require.NoError(t, err)
		}, file, true},
		{"created by someone else", func(name string) {
			_, err := audience.CreateAudience(ctx, b.deps.API, b.account, name)
			require.NoError(t, err)
		}, file, false},
		{"adsync's, holding another file", func(name string) {
			_, _, err := audience.CreateForUpload(ctx, b.pool, b.deps.API, name, other)
			require.NoError(t, err)
		}, file, false},
	} {
		tt.before(tt.name)
		// Whatever was created holds an upload of the previous file, if any.
		var prev string
		err := b.pool.QueryRow(ctx, `SELECT coalesce(audience_id, '') FROM audience_creates WHERE account_id = $1 AND name = $2`,
			b.account, tt.name).Scan(&prev)
		if err == nil && prev != "" {
			o := file
			if tt.name == "adsync's, holding another file" {
				o = other
			}
			o.AudienceID = prev
			b.plan(o)
		}

		id, created, err := audience.CreateForUpload(ctx, b.pool, b.deps.API, tt.name, tt.o)
		if !tt.ours {
			var dup *audience.DuplicateNameError
			require.ErrorAs(t, err, &dup, tt.name)
			require.NotEmpty(t, dup.ExistingID, tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		require.False(t, created, tt.name)
		require.Contains(t, b.srv.AdsTruth().Accounts[b.account]["custom_audiences"].IDs, id, tt.name)
		o := tt.o
		o.AudienceID = id
		res := b.plan(o)
		if prev != "" {
			require.Equal(t, audience.Resumed, res.Outcome, "%s: the upload goes on", tt.name)
		} else {
			require.Equal(t, audience.Planned, res.Outcome, tt.name)
		}
	}
}
