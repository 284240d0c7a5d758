package config

import (
	"net/url"
)

const masked = "********"

// maskSecret hides a secret while still saying whether it is set.
func maskSecret(s string) string {
	if s == "" {
		return ""
	}
	return masked
}

// MaskURL hides the password of a connection URL (keyword/value DSNs are
// hidden entirely when they mention a password).
func MaskURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return masked
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Masked returns a copy safe to print: every secret replaced.
func (c Config) Masked() Config {
	c.DatabaseURL = MaskURL(c.DatabaseURL)
	c.SecretKey = maskSecret(c.SecretKey)
	c.UIPassword = maskSecret(c.UIPassword)
	c.MCPToken = maskSecret(c.MCPToken)
	c.API.ConsumerKey = maskSecret(c.API.ConsumerKey)
	c.API.ConsumerSecret = maskSecret(c.API.ConsumerSecret)
	c.API.AccessToken = maskSecret(c.API.AccessToken)
	c.API.AccessSecret = maskSecret(c.API.AccessSecret)
	c.Audiences = maskedAudiences(c.Audiences)
	return c
}

// MaskKey shows enough of a non-secret identifier (a consumer key) to tell
// which one is set: its first four and last two characters.
func MaskKey(s string) string {
	if len(s) < 10 {
		return maskSecret(s)
	}
	return s[:4] + "…" + s[len(s)-2:]
}
