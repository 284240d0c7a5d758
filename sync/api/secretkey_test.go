package api_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

func TestCheckSecretKeyRefusesKeysShorterThan32CharactersWithoutEchoingThem(t *testing.T) {
	raw := make([]byte, 32)
	_, err := rand.Read(raw)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, key string
		want      error
	}{
		{"empty", "", api.ErrNoSecretKey},
		{"31 characters", strings.Repeat("k", 31), api.ErrSecretKeyTooShort},
		{"31 characters padded with spaces", "  " + strings.Repeat("k", 31) + "  ", api.ErrSecretKeyTooShort},
		{"32 characters", strings.Repeat("k", 32), nil},
		{"openssl rand -base64 32", base64.StdEncoding.EncodeToString(raw), nil},
		{"openssl rand -hex 32", hex.EncodeToString(raw), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := api.CheckSecretKey(tc.key)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
			if strings.TrimSpace(tc.key) != "" {
				require.NotContains(t, err.Error(), strings.TrimSpace(tc.key))
			}
		})
	}
	require.Contains(t, api.ErrSecretKeyTooShort.Error(), "openssl rand -base64 32")
}

// The length check changes nothing of the key's derivation: a token sealed
// under a valid key before the check opens with it after.
func TestDeriveKeyOfAValidSecretKeyIsUnchanged(t *testing.T) {
	secret := strings.Repeat("s", 40)
	sealed, err := api.Seal(api.DeriveKey("user-tokens", secret), []byte("token"), []byte("aad"))
	require.NoError(t, err)
	require.NoError(t, api.CheckSecretKey(secret))
	plain, err := api.Open(api.DeriveKey("user-tokens", secret), sealed, []byte("aad"))
	require.NoError(t, err)
	require.Equal(t, "token", string(plain))
}
