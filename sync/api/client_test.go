package api_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

func getPosts(ctx context.Context, c *api.Client) (*api.Response, error) {
	return c.Do(ctx, &api.Request{Method: "GET", Base: api.BaseAPI, Path: "/2/posts", Endpoint: "GET /2/posts",
		Query: url.Values{"ids": {"1"}}, Auth: api.AuthBearer})
}

func TestBearerTokenIsObtainedOnceAndReused(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	c := newClient(t, f.config())
	for i := 0; i < 5; i++ {
		_, err := getPosts(context.Background(), c)
		require.NoError(t, err)
	}
	st := f.srv.Stats()
	require.Equal(t, 1, st.Family("POST /oauth2/token").Requests)
	require.Equal(t, 5, st.Family("GET /2/posts").ByStatus[200])
}

func TestBearerTokenIsSharedThroughPostgres(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	pool := migratedPool(t)
	for i := 0; i < 3; i++ { // three processes' clients
		cfg := f.config()
		cfg.Bearer = api.NewBearerSource(api.PGBearerStore{Pool: pool})
		_, err := getPosts(context.Background(), newClient(t, cfg))
		require.NoError(t, err)
	}
	require.Equal(t, 1, f.srv.Stats().Family("POST /oauth2/token").Requests)
	var enc []byte
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT token_enc FROM api_bearer_tokens").Scan(&enc))
	require.NotEmpty(t, enc)
}

func TestInvalidatedBearerTokenIsDroppedAndObtainedAgainOnce(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	ctx := context.Background()
	cfg := f.config()
	src := api.NewBearerSource(api.NewMemoryBearerStore())
	cfg.Bearer = src
	c := newClient(t, cfg)
	_, err := getPosts(ctx, c)
	require.NoError(t, err)
	old, err := src.Token(ctx, c)
	require.NoError(t, err)

	require.NoError(t, api.InvalidateBearerToken(ctx, c, old))
	_, err = getPosts(ctx, c) // 401 code 89, then a new token, then success
	require.NoError(t, err)
	fresh, err := src.Token(ctx, c)
	require.NoError(t, err)
	require.NotEqual(t, old, fresh)
	st := f.srv.Stats()
	require.Equal(t, 2, st.Family("POST /oauth2/token").Requests)
	require.Equal(t, 1, st.Family("GET /2/posts").ByStatus[401])
}

func TestBearerRequestsBackOffAfterCode99(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.BearerRequestLimit = 1 })
	ctx := context.Background()
	// Use up the fake's allowance with another client.
	_, err := api.RequestBearerToken(ctx, newClient(t, f.config()))
	require.NoError(t, err)

	c := newClient(t, f.config())
	_, err = getPosts(ctx, c)
	var rae *api.RetryAtError
	require.ErrorAs(t, err, &rae)
	require.True(t, rae.At.After(time.Now().Add(time.Minute)), "holds back for minutes, not seconds")
	_, err = getPosts(ctx, c)
	require.ErrorAs(t, err, &rae)
	require.Equal(t, 2, f.srv.Stats().Family("POST /oauth2/token").Requests, "the second call did not ask again")
}

func TestWrongTokenTypeIsRefused(t *testing.T) {
	t.Parallel()
	// A service answering token_type other than bearer must not be trusted.
	srv := newTokenTypeServer(t, "mac")
	c := newClient(t, api.Config{APIURL: srv, AdsURL: srv, Credentials: api.Credentials{ConsumerKey: "k", ConsumerSecret: "s"}})
	_, err := api.RequestBearerToken(context.Background(), c)
	require.ErrorContains(t, err, `token_type "mac"`)
}

func TestGovernorDoesNotSendARequestItKnowsWillBeRefused(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	rl := f.srv.RateLimits()
	rl.Limit, rl.Window = 3, time.Hour
	f.srv.SetRateLimits(rl)
	cfg := f.config()
	gov := api.NewGovernor(api.NewMemoryStore())
	gov.MaxWait = 0
	cfg.Governor = gov
	c := newClient(t, cfg)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		_, err := getPosts(ctx, c)
		require.NoError(t, err)
	}
	_, err := getPosts(ctx, c)
	var rae *api.RetryAtError
	require.ErrorAs(t, err, &rae)
	require.True(t, errors.Is(err, api.ErrRateLimited))
	require.WithinDuration(t, time.Now().Add(time.Hour), rae.At, 5*time.Second)
	st := f.srv.Stats().Family("GET /2/posts")
	require.Equal(t, 3, st.Requests, "the fourth request was never sent")
	require.Zero(t, st.Throttled)
}

func TestTwoClientsOnOneDatabaseStayInsideOneBudget(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	rl := f.srv.RateLimits()
	rl.Limit, rl.Window = 15, 2*time.Second
	f.srv.SetRateLimits(rl)
	pool := migratedPool(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for p := 0; p < 2; p++ {
		cfg := f.config()
		cfg.Governor = api.NewGovernor(api.PGStore{Pool: pool})
		cfg.Bearer = api.NewBearerSource(api.PGBearerStore{Pool: pool})
		c := newClient(t, cfg)
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 8; i++ {
					if _, err := getPosts(ctx, c); err != nil {
						errs <- err
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	st := f.srv.Stats().Family("GET /2/posts")
	require.Equal(t, 48, st.ByStatus[200])
	require.Zero(t, st.Throttled, "no 429: the shared governor kept both clients inside the window")
	require.LessOrEqual(t, st.MaxInWindow, 15)
}

func TestA429WaitsUntilTheResetAndRetries(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	f.srv.AddFault(fixtures.FaultRule{Path: "/2/posts", Kind: fixtures.Fault429, RetryAfter: 1, Times: 1})
	cfg := f.config()
	s := &sleeps{}
	gov := api.NewGovernor(api.NewMemoryStore())
	gov.Sleep = s.sleep
	cfg.Governor = gov
	tally := &api.Tally{}
	resp, err := getPosts(api.WithTally(context.Background(), tally), newClient(t, cfg))
	require.NoError(t, err)
	require.Equal(t, 2, resp.Attempts)
	requests, limited := tally.Take()
	require.Equal(t, 2, requests, "the bearer token's request and the posts' request: the retry after the 429 is not a request of its own")
	require.Equal(t, 1, limited, "the 429 is counted apart")
	require.NotEmpty(t, s.all())
	require.Greater(t, s.all()[0], 500*time.Millisecond, "waited for the reset, not a blind retry")
}

func TestA429BeyondMaxWaitBecomesRetryAt(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	f.srv.AddFault(fixtures.FaultRule{Path: "/2/posts", Kind: fixtures.Fault429, RetryAfter: 600, Times: 1})
	cfg := f.config()
	gov := api.NewGovernor(api.NewMemoryStore())
	gov.MaxWait = time.Second
	cfg.Governor = gov
	_, err := getPosts(context.Background(), newClient(t, cfg))
	var rae *api.RetryAtError
	require.ErrorAs(t, err, &rae)
	require.Greater(t, time.Until(rae.At), 5*time.Minute)
}

func TestA503HonoursRetryAfter(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	f.srv.AddFault(fixtures.FaultRule{Path: "/2/posts", Kind: fixtures.Fault503, RetryAfter: 2, Times: 1})
	cfg := f.config()
	s := &sleeps{}
	gov := api.NewGovernor(api.NewMemoryStore())
	gov.Sleep = s.sleep
	cfg.Governor = gov
	resp, err := getPosts(context.Background(), newClient(t, cfg))
	require.NoError(t, err)
	require.Equal(t, 2, resp.Attempts)
	require.InDelta(t, 2*time.Second, s.all()[0], float64(200*time.Millisecond))
}

func TestServerErrorsBackOffAndGiveUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	f.srv.AddFault(fixtures.FaultRule{Path: "/2/posts", Kind: fixtures.Fault500, Times: 2})
	cfg := f.config()
	cfg.MaxAttempts = 4
	c := newClient(t, cfg)
	resp, err := getPosts(context.Background(), c)
	require.NoError(t, err)
	require.Equal(t, 3, resp.Attempts)

	f.srv.AddFault(fixtures.FaultRule{Path: "/2/posts", Kind: fixtures.Fault500})
	_, err = getPosts(context.Background(), c)
	var oe *api.OAuthError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, 500, oe.Status)
	require.Equal(t, 3+4, f.srv.Stats().Family("GET /2/posts").Requests, "bounded: exactly MaxAttempts tries")
}

func TestConnectionResetIsRetriedOnlyWhenIdempotent(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	f.srv.AddFault(fixtures.FaultRule{Path: "/2/posts", Kind: fixtures.FaultReset, Times: 1})
	cfg := f.config()
	// Without keep-alive, net/http cannot retry a reset on a reused
	// connection by itself: the client's own retry is what is tested.
	cfg.HTTPClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	c := newClient(t, cfg)
	resp, err := getPosts(context.Background(), c)
	require.NoError(t, err)
	require.Equal(t, 2, resp.Attempts)

	f.srv.AddFault(fixtures.FaultRule{Path: "/oauth2/token", Kind: fixtures.FaultReset, Times: 1})
	_, err = api.RequestBearerToken(context.Background(), c) // a POST that is not marked idempotent
	var te *api.TransportError
	require.ErrorAs(t, err, &te)
	require.Equal(t, 1, f.srv.Stats().Family("POST /oauth2/token").Resets)
}

func TestLocalFailuresAreNotRetried(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	cfg := f.config()
	cfg.UserToken = nil
	s := &sleeps{}
	gov := api.NewGovernor(api.NewMemoryStore())
	gov.Sleep = s.sleep
	cfg.Governor = gov
	_, err := newClient(t, cfg).Do(context.Background(), &api.Request{Method: "GET", Base: api.BaseAPI, Path: "/1.1/account", Auth: api.AuthUser})
	require.ErrorContains(t, err, "no user access token configured")
	require.Empty(t, s.all(), "no backoff: the same failure would repeat")
	require.Zero(t, f.srv.Stats().Total())
}

func TestEveryRequestHasATimeout(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	f.srv.AddFault(fixtures.FaultRule{Path: "/2/posts", Kind: fixtures.FaultLatency, LatencyMS: 2000})
	cfg := f.config()
	cfg.Timeout = 100 * time.Millisecond
	cfg.MaxAttempts = 2
	_, err := getPosts(context.Background(), newClient(t, cfg))
	var te *api.TransportError
	require.ErrorAs(t, err, &te)
	require.ErrorContains(t, err, "timed out after 100ms")
}

func TestErrorsNeverContainSecrets(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	cfg := f.config()
	c := newClient(t, cfg)
	ctx := context.Background()
	// Invalidating a token that is not the current one answers 401 code 89;
	// the token travels in the query.
	err := api.InvalidateBearerToken(ctx, c, "AAAA-secret-bearer-value")
	require.Error(t, err)
	require.ErrorIs(t, err, api.ErrInvalidToken)
	for _, secret := range []string{"AAAA-secret-bearer-value", cfg.Credentials.ConsumerSecret, cfg.UserToken.Secret, cfg.UserToken.Token} {
		require.NotContains(t, err.Error(), secret)
	}
	// And a transport failure does not echo the URL's query.
	f.srv.AddFault(fixtures.FaultRule{Path: "/oauth2/invalidate_token", Kind: fixtures.FaultReset})
	err = api.InvalidateBearerToken(ctx, c, "BBBB-secret-bearer-value")
	require.Error(t, err)
	require.NotContains(t, err.Error(), "BBBB-secret-bearer-value")
}

func TestTamperedCredentialsAreTypedErrors(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	cfg := f.config()
	cfg.UserToken = &api.Token{Token: cfg.UserToken.Token, Secret: "wrong"}
	_, err := newClient(t, cfg).Do(context.Background(), &api.Request{Method: "POST", Base: api.BaseAPI,
		Path: "/1.1/oauth/invalidate_token", Auth: api.AuthUser})
	require.ErrorIs(t, err, api.ErrCouldNotAuthenticate)
	var oe *api.OAuthError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, http.StatusUnauthorized, oe.Status)
	require.True(t, strings.HasPrefix(oe.Endpoint, "POST /1.1/oauth/invalidate_token"))
}

func TestBadBaseURLIsRejected(t *testing.T) {
	t.Parallel()
	_, err := api.NewClient(api.Config{APIURL: "ftp://x", AdsURL: "http://y"})
	require.ErrorContains(t, err, "invalid API URL")
	_, err = api.NewClient(api.Config{APIURL: "http://x"})
	require.ErrorContains(t, err, "no ads URL")
}

func TestBearerTokenTheServiceDoesNotKnowIsReplacedOnce(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	ctx := context.Background()
	store := api.NewMemoryBearerStore()
	cfg := f.config()
	cfg.Bearer = api.NewBearerSource(store)
	c := newClient(t, cfg)
	// A token cached from another service instance (or application).
	creds := c.Credentials()
	stale := "AAAA-not-issued-by-this-service"
	require.NoError(t, store.Save(ctx, api.AppKeyForTest(creds), creds, stale, time.Now()))
	_, err := getPosts(ctx, c)
	require.NoError(t, err)
	st := f.srv.Stats()
	require.Equal(t, 1, st.Family("GET /2/posts").ByStatus[401])
	require.Equal(t, 1, st.Family("POST /oauth2/token").Requests)
}

func TestASignedRequestIsNeverSentTwiceWithOneNonceAfterAResetOnAReusedConnection(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	c := newClient(t, f.config())
	ctx := context.Background()
	list := func() (*api.Response, error) {
		return c.Do(ctx, &api.Request{Method: "GET", Base: api.BaseAds, Path: "/12/accounts", Auth: api.AuthUser})
	}
	_, err := list() // leaves a kept-alive connection to reuse
	require.NoError(t, err)
	// The service reads and acts on the next request, then drops the
	// connection before answering: net/http would resend it by itself.
	f.srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts", Method: "GET", Kind: fixtures.FaultResetAfter, Times: 3})
	resp, err := list()
	require.NoError(t, err)
	require.Equal(t, 4, resp.Attempts, "three resets, each resent by the client's own loop")
	fam := f.srv.Stats().Family("GET /12/accounts")
	require.Equal(t, 3, fam.Resets)
	require.Zero(t, fam.ByStatus[http.StatusUnauthorized], "no attempt reused a nonce the service had seen")
	require.Equal(t, 1+4, fam.Requests)
}

func TestBadCredentialsFailAtOnce(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	cfg := f.config()
	cfg.UserToken = &api.Token{Token: cfg.UserToken.Token, Secret: "not-the-secret"}
	_, err := newClient(t, cfg).Do(context.Background(), &api.Request{Method: "GET", Base: api.BaseAds, Path: "/12/accounts", Auth: api.AuthUser})
	require.ErrorIs(t, err, api.ErrCouldNotAuthenticate)
	require.Equal(t, 1, f.srv.Stats().Family("GET /12/accounts").Requests, "bad credentials are not retried")
	require.NotContains(t, err.Error(), "not-the-secret")
}

// countingStore counts the calls reaching a budget store.
type countingStore struct {
	api.BudgetStore
	mu    sync.Mutex
	calls int
}

func (s *countingStore) count() int { s.mu.Lock(); defer s.mu.Unlock(); return s.calls }
func (s *countingStore) add()       { s.mu.Lock(); s.calls++; s.mu.Unlock() }

func (s *countingStore) Reserve(ctx context.Context, b string, now time.Time, p *api.Budget, ttl time.Duration) (bool, time.Time, error) {
	s.add()
	return s.BudgetStore.Reserve(ctx, b, now, p, ttl)
}

func (s *countingStore) Release(ctx context.Context, b string) error {
	s.add()
	return s.BudgetStore.Release(ctx, b)
}

func (s *countingStore) Observe(ctx context.Context, b string, rl api.RateLimit, now time.Time) error {
	s.add()
	return s.BudgetStore.Observe(ctx, b, rl, now)
}

func TestAnEndpointAnsweredWithoutRateLimitHeadersCostsNoStoreCallUntilItHasSome(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.RateLimits.Disabled = true })
	store := &countingStore{BudgetStore: api.NewMemoryStore()}
	cfg := f.config()
	cfg.Governor = api.NewGovernor(store)
	c := newClient(t, cfg)
	ctx := context.Background()
	_, err := getPosts(ctx, c)
	require.NoError(t, err)
	first := store.count()
	require.Positive(t, first, "the first request (and its token's) are reserved and their answers observed")
	for i := 0; i < 5; i++ {
		_, err := getPosts(ctx, c)
		require.NoError(t, err)
	}
	require.Equal(t, first, store.count(), "an endpoint known unlimited reserves nothing")

	// The service limits the endpoint now: its answer's headers end the
	// shortcut, and the next request is reserved again.
	rl := f.srv.RateLimits()
	rl.Disabled, rl.Limit, rl.Window = false, 100, time.Hour
	f.srv.SetRateLimits(rl)
	_, err = getPosts(ctx, c)
	require.NoError(t, err)
	require.Equal(t, first, store.count())
	_, err = getPosts(ctx, c)
	require.NoError(t, err)
	require.Equal(t, first+2, store.count())
}
