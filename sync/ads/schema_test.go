package ads

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the generated part of the migration")

const migrationFile = "../../migrations/sql/0003_ads.sql"

const generatedMarker = "-- Entity tables (generated).\n"

func TestMigrationHoldsTheRegistrysTables(t *testing.T) {
	b, err := os.ReadFile(migrationFile)
	require.NoError(t, err)
	head, _, ok := strings.Cut(string(b), generatedMarker)
	require.True(t, ok, "the migration lost its marker line")
	want := head + generatedMarker + SchemaSQL()
	if *update {
		require.NoError(t, os.WriteFile(migrationFile, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, string(b), "run go test ./sync/ads -run TestMigration -update")
}
