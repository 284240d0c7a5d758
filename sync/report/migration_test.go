package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the generated migration")

func TestMigrationHoldsTheDeclaredRelations(t *testing.T) {
	file := filepath.Join("..", "..", MigrationFile)
	if *update {
		require.NoError(t, os.WriteFile(file, []byte(MigrationSQL()), 0o644))
		return
	}
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, MigrationSQL(), string(b), "run go test ./sync/report -run TestMigration -update")
}
