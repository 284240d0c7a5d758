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

func TestLaterColumnsAndIndexesAreInTheirMigration(t *testing.T) {
	versions := map[int]bool{}
	for _, e := range registry {
		for _, c := range e.Columns {
			versions[c.Migration], versions[c.Dropped] = true, true
		}
		versions[e.IncrementalFrom] = true
	}
	delete(versions, 0)
	require.NotEmpty(t, versions)
	for v := range versions {
		alter := AlterSQL(v)
		require.NotEmpty(t, alter, "migration %d", v)
		files, err := filepath.Glob(fmt.Sprintf("../../migrations/sql/%04d_*.sql", v))
		require.NoError(t, err)
		require.Len(t, files, 1, "migration %d", v)
		b, err := os.ReadFile(files[0])
		require.NoError(t, err)
		require.Contains(t, string(b), alter, "%s holds the registry's changes of migration %d", files[0], v)
	}
	// A table's DDL is the table as first created: a later column is not in
	// it, a dropped one still is.
	li, _ := Lookup("line_items")
	ddl := li.CreateTableSQL()
	require.Contains(t, ddl, "servable")
	require.NotContains(t, ddl, "goal")
	require.NotContains(t, ddl, "_updated_idx")
	require.NotContains(t, li.MergeSQL(), "servable")
	require.Contains(t, li.MergeSQL(), "goal = EXCLUDED.goal")
}
