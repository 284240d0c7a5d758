package export

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestChecksumParametersAreReadAsGocloudReadsThem(t *testing.T) {
	for _, tc := range []struct {
		value          string
		set, supported bool
		err            string
	}{
		{"", false, false, ""},
		{"when_supported", true, true, ""},
		{"WHEN_SUPPORTED", true, true, ""},
		{"when_required", true, false, ""},
		{"WHEN_REQUIRED", true, false, ""},
		{"always", false, false, `request_checksum_calculation="always": want when_supported or when_required`},
	} {
		q := url.Values{}
		if tc.value != "" {
			q.Set("request_checksum_calculation", tc.value)
		}
		set, supported, err := checksumParam(q, "request_checksum_calculation")
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err)
			continue
		}
		require.NoError(t, err, tc.value)
		require.Equal(t, tc.set, set, tc.value)
		require.Equal(t, tc.supported, supported, tc.value)
	}
}
