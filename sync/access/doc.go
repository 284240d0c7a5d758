// Package access is the set of users a deployment acts for: the configured
// access token and every token stored by adsync auth login or auth add. It
// records which accounts each user's token reaches and its role there
// (account_users), chooses for every account one user who reaches it,
// stable from run to run and spread over the users (the service's rate
// limits are per user and endpoint), and moves an account's work to
// another user when the service stops accepting the chosen one.
package access
