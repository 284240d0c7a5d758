package store

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// stubPSQL is a psql that prints its arguments, one per line, and whether
// PGPASSWORD holds want, then exits with status code.
func stubPSQL(t *testing.T, want string, code int) func(string) (string, error) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "psql")
	script := "#!/bin/sh\nfor a in \"$@\"; do echo \"arg $a\"; done\n" +
		"[ \"$PGPASSWORD\" = '" + want + "' ] && echo 'password in the environment'\n" +
		"exit " + strconv.Itoa(code) + "\n"
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return func(string) (string, error) { return bin, nil }
}

func TestPSQLGetsThePasswordInItsEnvironmentNeverOnItsCommandLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := PSQL(PSQLSession{
		URL:   "postgres://app:pw-never-shown@db.example:5433/adsync?sslmode=require&pool_max_conns=8&statement_cache_capacity=0",
		Args:  []string{"-c", "select 1"},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out,
		LookPath: stubPSQL(t, "pw-never-shown", 0),
	})
	require.NoError(t, err)
	require.Equal(t, "arg --dbname=postgres://app@db.example:5433/adsync?sslmode=require\narg -c\narg select 1\npassword in the environment\n", out.String(),
		"pgx's own parameters, which psql refuses, are left out")
}

func TestPSQLTakesAKeywordConnectionStringThroughTheEnvironment(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := PSQL(PSQLSession{URL: "host=db.example port=5433 user=app dbname=adsync password=pw-never-shown sslmode=disable",
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, LookPath: stubPSQL(t, "pw-never-shown", 0)})
	require.NoError(t, err)
	require.Equal(t, "password in the environment\n", out.String(), "no argument names the connection")
}

func TestPSQLExitStatusIsReturned(t *testing.T) {
	t.Parallel()
	err := PSQL(PSQLSession{URL: "postgres://app@db.example/adsync", Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{},
		LookPath: stubPSQL(t, "", 3)})
	var exit *PSQLExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 3, exit.Code)
}

func TestPSQLMissingNamesTheClientPackage(t *testing.T) {
	t.Parallel()
	err := PSQL(PSQLSession{URL: "postgres://app@db.example/adsync", LookPath: func(string) (string, error) { return "", exec.ErrNotFound }})
	require.ErrorIs(t, err, ErrNoPSQL)
	require.ErrorContains(t, err, "psql not found on PATH")
	require.ErrorContains(t, err, "postgresql-client")
}
