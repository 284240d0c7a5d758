package migrations_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/stretchr/testify/require"
)

func TestWriteStatusListsEveryVersionPendingThenAppliedAndMigrateSaysWhatItApplied(t *testing.T) {
	t.Parallel()
	pool := connect(t, localpg.NewDatabase(t))
	ctx := context.Background()
	var before strings.Builder
	require.NoError(t, migrations.WriteStatus(ctx, pool, nil, &before))
	lines := strings.Split(strings.TrimSuffix(before.String(), "\n"), "\n")
	require.Regexp(t, `^COMPONENT\s+VERSION\s+NAME\s+STATE\s+APPLIED AT$`, lines[0])
	require.Equal(t, fmt.Sprintf("%d pending", len(lines)-2), lines[len(lines)-1], "every version is pending")
	require.Regexp(t, `(?m)^app\s+1\s+\S+\s+pending\s*$`, before.String())

	res, err := migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("applied %d River and %d adsync migrations", len(res.River), len(res.App)), res.String())
	var after strings.Builder
	require.NoError(t, migrations.WriteStatus(ctx, pool, nil, &after))
	require.Regexp(t, regexp.MustCompile(`(?m)^app\s+1\s+\S+\s+applied\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$`), after.String())
	require.True(t, strings.HasSuffix(after.String(), "\n0 pending\n"), after.String())

	res, err = migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)
	require.Equal(t, "database is up to date", res.String())
}
