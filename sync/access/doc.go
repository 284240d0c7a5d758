// Package access is the set of users a deployment acts for: the configured
// access token and every token stored by adsync auth login or auth add. It
// records which accounts each user's token reaches and its role there
// (account_users), chooses for every account one user who reaches it,
// stable from run to run and spread over the users (the service's rate
// limits are per user and endpoint), and moves an account's work to
// another user when the service stops accepting the chosen one.
//
// It also adds and removes users, as adsync auth does: the three-legged login
// at a terminal (Login), checking and storing pasted tokens (Onboarding.Add),
// revoking and forgetting a user (Revoke, Remove) and listing them (List),
// and obtains or revokes the application-only bearer token (Bearer,
// RevokeBearer), which it shows masked.
//
// It owns which accounts each user reaches (account_users), the users adsync
// knows (api_users) and the choice of who acts for an account. It must not
// send a request except through package api's client, and must not log or
// print a token or secret.
package access
