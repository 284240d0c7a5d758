package adsynccmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readmeExample returns the command and the output of the README's console
// example that starts with prompt.
func readmeExample(t *testing.T, prompt string) ([]string, string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(readme), "```console\n$ "+prompt)
	require.True(t, ok, "README.md shows %q in a console block", prompt)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)
	line, out, _ := strings.Cut(block, "\n")
	return strings.Fields(prompt + line), out
}

func TestREADMEAudienceHashExampleRunsAsShown(t *testing.T) {
	t.Parallel()
	args, want := readmeExample(t, "adsync audience hash ")
	require.Equal(t, "adsync", args[0])
	out := filepath.Join(t.TempDir(), "users.ndjson")
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "fixtures/"):
			args[i] = filepath.Join("..", a) // the README runs from the project's root
		case a == "users.ndjson":
			args[i] = out
		}
	}
	r := run(t, args[1:]...)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, want, r.stdout, "the README shows exactly what the command prints")
	users, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, 3000, strings.Count(string(users), "\n"), "the sample's 3,000 valid users")
}
