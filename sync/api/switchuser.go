package api

import (
	"errors"
	"fmt"
	"net/http"
)

// SwitchUserError says a request failed for the user it was signed for and
// may succeed for another user who reaches the same account: the user's
// token was invalidated (401 code 89) or refused, or the service refused the
// user on the account (403). The work should be tried again at once with
// another user's token (see package access); Err is the service's answer.
type SwitchUserError struct {
	UserID    string
	AccountID string
	Err       error
}

func (e *SwitchUserError) Error() string {
	return fmt.Sprintf("account %s: user %s can no longer be used there (%v): another user who reaches the account takes over", e.AccountID, e.UserID, e.Err)
}

func (e *SwitchUserError) Unwrap() error { return e.Err }

// UserFailure says whether err means the user a request was signed for can
// no longer act (revoked: 401 code 89; refused: any other 401), or no
// longer reaches the account it named (lost: 403). It returns "" for every
// other error.
func UserFailure(err error) string {
	if err == nil {
		return ""
	}
	var swe *SwitchUserError
	if errors.As(err, &swe) {
		return ""
	}
	if errors.Is(err, ErrInvalidToken) {
		return UserRevoked
	}
	switch Explain(err).Status {
	case http.StatusUnauthorized:
		return UserRefused
	case http.StatusForbidden:
		if errors.Is(err, ErrBearerTooFrequent) {
			return ""
		}
		return UserLost
	}
	return ""
}

// What UserFailure reports.
const (
	UserRevoked = "revoked"
	UserRefused = "refused"
	UserLost    = "lost"
)
