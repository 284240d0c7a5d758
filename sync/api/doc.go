// Package api is the HTTP client of the advertising and social-post service:
// OAuth 1.0a signing, bearer tokens, envelopes, typed errors, cursor paging,
// a rate-limit governor shared across processes, and bounded retries.
//
// Each kind of fault has one layer that retries it:
//
//   - Short faults of the connection (no answer, a reset, a timeout) and 5xx
//     answers to idempotent requests: Client.Do, up to MaxAttempts with
//     exponential backoff and full jitter, every attempt signed anew (net/http
//     never resends a signed request by itself).
//   - Rate limits: the governor holds a request until its window opens when
//     that is within MaxWait (pacing at the limit, not a retry); a longer wait
//     becomes a *RetryAtError, which the job layer turns into a snooze.
//   - Longer outages: once Do gives up, the error goes up unchanged and the
//     job fails its attempt; River's attempts, with backoff, try again later.
//     Pipelines do not retry what Do already retried.
//
// Explain is the one place that says what an error means (retry, wait until,
// final); the job layer maps that to River in one function.
//
// It also holds the credential steps a person drives through adsync auth (the
// three-legged flow's calls and the loopback CallbackListener that catches
// its redirect, the encrypted store of user tokens, revoking the bearer
// token), the calls adsync api makes by hand (RawCall, DoRaw) and adsync
// doctor's probe of the service and its clock (ProbeService).
//
// It owns the requests: signing, paging, errors, retries and the rate-limit
// governor with its own tables (api_rate_limits, api_bearer_tokens,
// api_user_tokens). It must not import another adsync package or know a
// pipeline's tables, and must not let a token, secret or signature reach a log
// or an error.
package api
