package ads

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const historyMigrationFile = "../../migrations/sql/0031_entity_history.sql"

const historyMarker = "-- Entity histories (generated).\n"

func TestHistoryMigrationHoldsTheRegistrysHistories(t *testing.T) {
	b, err := os.ReadFile(historyMigrationFile)
	require.NoError(t, err)
	head, _, ok := strings.Cut(string(b), historyMarker)
	require.True(t, ok, "the migration lost its marker line")
	want := head + historyMarker + HistorySchemaSQL()
	if *update {
		require.NoError(t, os.WriteFile(historyMigrationFile, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, string(b), "run go test ./sync/ads -run TestHistoryMigration -update")
	require.True(t, strings.HasPrefix(filepath.Base(historyMigrationFile), fmt.Sprintf("%04d_", HistoryMigration)))
	for _, e := range registry {
		require.Contains(t, string(b), "CREATE VIEW "+e.History()+" AS", "every entity table has its history")
	}
}
