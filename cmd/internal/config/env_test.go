package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUnknownEnvNamesTheNearestKnownName(t *testing.T) {
	t.Parallel()
	got := UnknownEnv([]string{
		"ADSYNC_ADS_ULR=http://value-never-shown",
		"ADSYNC_CONSUMER_SECRT=secret-never-shown",
		"ADSYNC_ADS_URL=http://known",
		"ADSYNC_TEST_NOW=2026-01-01T00:00:00Z",
		"ADSYNC_TEST_DATABASE_URL=postgres://x",
		"HOME=/root",
		"ADSYNC_SOMETHING_ELSE_ENTIRELY=1",
	})
	require.Len(t, got, 3)
	require.Contains(t, got, "ADSYNC_ADS_ULR: unknown; did you mean ADSYNC_ADS_URL?")
	require.Contains(t, got, "ADSYNC_CONSUMER_SECRT: unknown; did you mean ADSYNC_CONSUMER_SECRET?")
	far := got[slices.IndexFunc(got, func(s string) bool { return strings.HasPrefix(s, "ADSYNC_SOMETHING_ELSE_ENTIRELY") })]
	require.Contains(t, far, "ADSYNC_SOMETHING_ELSE_ENTIRELY: unknown (adsync reads ADSYNC_CONFIG, ADSYNC_DATABASE_URL,")
	for _, w := range got {
		require.NotContains(t, w, "never-shown")
	}
}

// envLiteral is an ADSYNC_* name as the code writes it: "NAME" or "NAME=".
var envLiteral = regexp.MustCompile(`"(ADSYNC_[A-Z][A-Z0-9_]*[A-Z0-9])[="]`)

func TestKnownEnvNamesCoverEveryNameTheCodeReads(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "..")
	known := KnownEnvNames()
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range envLiteral.FindAllStringSubmatch(string(b), -1) {
			seen++
			if strings.HasSuffix(path, "env_test.go") {
				continue // this file's own examples of unknown names
			}
			require.Contains(t, known, m[1], "%s reads %s: add it to config.otherEnvNames", path, m[1])
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, seen, 10, "the walk found the code's names")
}
