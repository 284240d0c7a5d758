package export

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// listAll lists every path under dir, for checking that nothing was left.
func listAll(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		out = append(out, p)
		return err
	}))
	return out
}

func TestCheckFolderAppliesTheOwnershipRulesAndLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := t.TempDir()

	missing := filepath.Join(base, "new", "out")
	state, err := CheckFolder(ctx, nil, missing)
	require.NoError(t, err)
	require.Equal(t, FolderMissing, state)
	require.Equal(t, []string{base}, listAll(t, base), "nothing created, not even the folder")

	empty := filepath.Join(base, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	state, err = CheckFolder(ctx, nil, empty)
	require.NoError(t, err)
	require.Equal(t, FolderEmpty, state)
	require.Equal(t, []string{empty}, listAll(t, empty))

	owned := filepath.Join(base, "owned")
	require.NoError(t, os.Mkdir(owned, 0o755))
	m := marker{Format: markerFormat, Version: 1, OutputID: newUUID(), DatabaseID: "db-1"}
	b, _ := json.Marshal(m)
	require.NoError(t, createMarker(owned, b, m))
	state, err = CheckFolder(ctx, nil, owned)
	require.NoError(t, err)
	require.Equal(t, FolderOwned, state)

	foreign := filepath.Join(base, "foreign")
	require.NoError(t, os.Mkdir(foreign, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644))
	_, err = CheckFolder(ctx, nil, foreign)
	var oe *OwnershipError
	require.ErrorAs(t, err, &oe)
	require.ErrorContains(t, err, "not empty (notes.txt) and has no _adsync_export.json marker")
	require.Len(t, listAll(t, foreign), 2, "the folder keeps only what it held")

	file := filepath.Join(base, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = CheckFolder(ctx, nil, file)
	require.ErrorContains(t, err, "it is a file, not a folder")
	_, err = CheckFolder(ctx, nil, filepath.Join(file, "sub"))
	require.Error(t, err, "a folder under a file cannot be created")
}
