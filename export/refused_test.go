package export

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/stretchr/testify/require"
)

// awsEnvWithoutCredentials unsets every AWS_* variable until the test
// ends and points the SDK's files and instance metadata service where
// they find no credentials: an instance metadata service that refuses
// tokens, which makes the SDK warn that it falls back to IMDSv1.
func awsEnvWithoutCredentials(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			t.Setenv(k, "")
			require.NoError(t, os.Unsetenv(k))
		}
	}
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	}))
	t.Cleanup(imds.Close)
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.URL)
}

// captureStderr collects what is written to the process's stderr until
// the returned function is called.
func captureStderr(t *testing.T) func() string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	saved := os.Stderr
	os.Stderr = w
	got := make(chan string)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	return func() string {
		os.Stderr = saved
		_ = w.Close()
		return <-got
	}
}

// An S3 endpoint nothing listens on is named by host and port, with or
// without credentials (without, the SDK stops before dialling, and the
// endpoint is dialled to tell), and the SDK writes nothing of its own to
// stderr: not the credential chain's "falling back to IMDSv1" warning.
// It sets the environment and stderr: not in parallel.
func TestAnS3EndpointThatRefusesIsNamedAndTheSDKPrintsNothing(t *testing.T) {
	awsEnvWithoutCredentials(t)
	addr := fixtures.ClosedAddr(t)
	out := "s3://bkt/p?endpoint=http://" + addr + "&use_path_style=true&region=us-east-1"
	ctx := context.Background()

	stderr := captureStderr(t)
	_, err := CheckOutput(ctx, nil, out)
	require.Empty(t, stderr(), "the SDK logs nothing")
	var refused *EndpointRefusedError
	require.ErrorAs(t, err, &refused)
	require.Equal(t, addr, refused.Endpoint)
	require.True(t, refused.NoCredentials)
	require.ErrorContains(t, err, "the S3 endpoint "+addr+" refused the connection")
	require.ErrorContains(t, err, "no AWS credentials were found")

	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDNEVERSHOWN")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret-never-shown")
	stderr = captureStderr(t)
	_, err = CheckOutput(ctx, nil, out)
	require.Empty(t, stderr(), "the SDK logs nothing")
	require.ErrorAs(t, err, &refused)
	require.Equal(t, addr, refused.Endpoint)
	require.False(t, refused.NoCredentials)
	require.Equal(t, "export: reading the marker of s3://bkt/p: the S3 endpoint "+addr+
		" refused the connection: start the S3 server there, or correct endpoint= in the output URL", err.Error())
	require.NotContains(t, err.Error(), "secret-never-shown")
	require.NotContains(t, err.Error(), "AKIDNEVERSHOWN")
}
