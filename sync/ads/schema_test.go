package ads

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
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

func TestLaterEntitiesTablesAreInTheirOwnMigration(t *testing.T) {
	n := 0
	for _, e := range registry {
		if e.Migration == 0 {
			continue
		}
		n++
		files, err := filepath.Glob(fmt.Sprintf("../../migrations/sql/%04d_*.sql", e.Migration))
		require.NoError(t, err)
		require.Len(t, files, 1, "migration %d of %s", e.Migration, e.Name)
		b, err := os.ReadFile(files[0])
		require.NoError(t, err)
		require.Contains(t, string(b), e.CreateTableSQL(), "%s holds %s's table as the registry declares it", files[0], e.Name)
	}
	require.Positive(t, n)
}
