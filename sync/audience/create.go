package audience

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/adsync/adsync/sync/api"
)

// DuplicateNameError is a custom audience name already taken in the account.
type DuplicateNameError struct {
	Name string
	// ExistingID is the audience holding the name, when the service said.
	ExistingID string
	Err        error
}

func (e *DuplicateNameError) Error() string {
	if e.ExistingID == "" {
		return fmt.Sprintf("a custom audience named %q already exists", e.Name)
	}
	return fmt.Sprintf("a custom audience named %q already exists: %s", e.Name, e.ExistingID)
}

func (e *DuplicateNameError) Unwrap() error { return e.Err }

// CreateAudience creates a CRM custom audience named name in accountID and
// returns its id. A name already in use answers a *DuplicateNameError
// naming the existing audience.
//
// A create whose answer was lost (5xx, connection reset) is sent again: the
// unique name makes that safe, and a duplicate answered to the resend means
// the lost attempt created the audience, so its id is returned.
func CreateAudience(ctx context.Context, c *api.Client, accountID, name string) (string, error) {
	const tries = 3
	var err error
	for try := 1; try <= tries; try++ {
		var id string
		id, err = createOnce(ctx, c, accountID, name)
		var dup *DuplicateNameError
		switch {
		case err == nil:
			return id, nil
		case errors.As(err, &dup):
			if try > 1 && dup.ExistingID != "" {
				return dup.ExistingID, nil
			}
			return "", err
		case !answerLost(err):
			return "", err
		}
	}
	return "", err
}

// answerLost reports whether a create may have happened without its answer
// reaching us.
func answerLost(err error) bool {
	var te *api.TransportError
	if errors.As(err, &te) {
		return true
	}
	var oe *api.OAuthError
	var he *api.HTTPError
	var ae *api.AdsError
	return (errors.As(err, &oe) && oe.Status >= 500) || (errors.As(err, &he) && he.Status >= 500) || (errors.As(err, &ae) && ae.Status >= 500)
}

func createOnce(ctx context.Context, c *api.Client, accountID, name string) (string, error) {
	resp, err := c.Do(ctx, &api.Request{
		Method: "POST", Base: api.BaseAds, Auth: api.AuthUser, AccountID: accountID,
		Path: "/12/accounts/" + url.PathEscape(accountID) + "/custom_audiences",
		Form: url.Values{"name": {name}},
	})
	var ae *api.AdsError
	if errors.As(err, &ae) {
		for _, d := range ae.Errors {
			// Spec, Errors: a duplicate audience name is a validation error;
			// its code starts with DUPLICATE_ and its message ends with the
			// existing audience's id.
			if strings.HasPrefix(d.Code, "DUPLICATE") {
				dup := &DuplicateNameError{Name: name, Err: err}
				if i := strings.LastIndex(d.Message, ": "); i >= 0 {
					dup.ExistingID = strings.TrimSpace(d.Message[i+2:])
				}
				return "", dup
			}
		}
	}
	if err != nil {
		return "", err
	}
	rec, err := api.Decode[api.Single[struct {
		ID string `json:"id"`
	}]]("POST /12/accounts/{account_id}/custom_audiences", resp.Body)
	if err != nil {
		return "", err
	}
	if rec.Data.ID == "" {
		return "", errors.New("custom audience created without an id in the answer")
	}
	return rec.Data.ID, nil
}
