package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMisspelledEnvironmentVariableIsWarnedWithTheNearestName(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil, "")
	code, out := e.runEnv(t, []string{"ADSYNC_ADS_ULR=http://127.0.0.1:1/value-never-shown"}, "version")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "adsync: warning: ADSYNC_ADS_ULR: unknown; did you mean ADSYNC_ADS_URL?")
	require.NotContains(t, out, "value-never-shown")
}
