package access

import (
	"slices"
	"strings"
)

// Need is what a call needs of the user's role on the account.
type Need int

// Needs.
const (
	// NeedRead is any role: every role reads the account's entities.
	NeedRead Need = iota
	// NeedAnalytics is a role that sees performance analytics.
	NeedAnalytics
	// NeedAudience is a role that may change custom audiences.
	NeedAudience
)

// Roles that allow each need. The spec (document 2, authenticated_user_access)
// names the roles but not what each may call; these follow the service's
// public description of them: creative managers and partner audience
// managers see no analytics, and only admins, ad managers and partner
// audience managers manage audiences.
var allowed = map[Need][]string{
	NeedAnalytics: {"ACCOUNT_ADMIN", "AD_MANAGER", "CAMPAIGN_ANALYST", "ANALYST"},
	NeedAudience:  {"ACCOUNT_ADMIN", "AD_MANAGER", "PARTNER_AUDIENCE_MANAGER"},
}

func (n Need) String() string {
	switch n {
	case NeedAnalytics:
		return "analytics"
	case NeedAudience:
		return "audience changes"
	}
	return "reading"
}

// Allows reports whether a user with permissions may make calls of need.
func (n Need) Allows(permissions []string) bool {
	if n == NeedRead {
		return true
	}
	for _, p := range permissions {
		if slices.Contains(allowed[n], p) {
			return true
		}
	}
	return false
}

// Role is the role among permissions (POST_COMPOSER is a permission, not a
// role), "" when none is known.
func Role(permissions []string) string {
	var roles []string
	for _, p := range permissions {
		if p != "POST_COMPOSER" {
			roles = append(roles, p)
		}
	}
	return strings.Join(roles, ",")
}
