package audience

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBatcherKeepsEveryBodyWithinUsersAndBytes(t *testing.T) {
	t.Parallel()
	eff := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	exp := eff.AddDate(0, 6, 0)
	for _, tt := range []struct {
		name               string
		maxUsers, maxBytes int
		users              int
		wantBodies         int
	}{
		{"by users", 10, 1 << 20, 25, 3},
		{"by bytes", 1000, 500, 25, 0},
		{"exactly full", 5, 1 << 20, 10, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			type body struct {
				raw   []byte
				users int
			}
			var bodies []body
			b := newBatcher(OpUpdate, &eff, &exp, tt.maxUsers, tt.maxBytes, func(op string, raw []byte, users int) error {
				bodies = append(bodies, body{append([]byte(nil), raw...), users})
				return nil
			})
			for i := range tt.users {
				require.NoError(t, b.add(fmt.Appendf(nil, `{"email":["%064d"]}`, i)))
			}
			require.NoError(t, b.close())
			if tt.wantBodies > 0 {
				require.Len(t, bodies, tt.wantBodies)
			}
			seen := 0
			for _, bd := range bodies {
				require.LessOrEqual(t, len(bd.raw), tt.maxBytes)
				require.LessOrEqual(t, bd.users, tt.maxUsers)
				var ops []struct {
					OperationType string `json:"operation_type"`
					Params        struct {
						Users       []map[string][]string `json:"users"`
						EffectiveAt string                `json:"effective_at"`
						ExpiresAt   string                `json:"expires_at"`
					} `json:"params"`
				}
				require.NoError(t, json.Unmarshal(bd.raw, &ops), string(bd.raw))
				require.Len(t, ops, 1)
				require.Equal(t, "Update", ops[0].OperationType)
				require.Equal(t, "2026-01-02T03:04:05Z", ops[0].Params.EffectiveAt)
				require.Equal(t, "2026-07-02T03:04:05Z", ops[0].Params.ExpiresAt)
				require.Len(t, ops[0].Params.Users, bd.users)
				for _, u := range ops[0].Params.Users {
					require.Equal(t, fmt.Sprintf("%064d", seen), u["email"][0], "users keep file order")
					seen++
				}
			}
			require.Equal(t, tt.users, seen)
		})
	}
}

func TestBatcherFillsABodyToTheExactByteLimit(t *testing.T) {
	t.Parallel()
	var sizes []int
	user := []byte(`{"email":["x"]}`)
	probe := newBatcher(OpDelete, nil, nil, 100, 1<<20, nil)
	// Room for exactly 3 users: prefix + 3 users + 2 commas + suffix.
	limit := len(probe.prefix) + 3*len(user) + 2 + len(probe.suffix)
	b := newBatcher(OpDelete, nil, nil, 100, limit, func(_ string, raw []byte, _ int) error {
		sizes = append(sizes, len(raw))
		return nil
	})
	for range 7 {
		require.NoError(t, b.add(user))
	}
	require.NoError(t, b.close())
	require.Equal(t, []int{limit, limit, len(probe.prefix) + len(user) + len(probe.suffix)}, sizes)
}

func TestBatcherRefusesAUserLargerThanARequest(t *testing.T) {
	t.Parallel()
	b := newBatcher(OpUpdate, nil, nil, 10, 40, func(string, []byte, int) error { return nil })
	require.ErrorIs(t, b.add([]byte(`{"email":["0123456789012345678901234567890123456789"]}`)), errUserTooLarge)
}
