package api

import (
	"context"
	"go.uber.org/zap"
	"strings"
	"sync"
	"time"
)

// Budget is a rate limit known before any answer (the spec documents some,
// e.g. 1,500 audience user requests a minute).
type Budget struct {
	Limit  int
	Window time.Duration
}

// BudgetStore keeps rate-limit windows. The Postgres store shares them
// between processes so several workers stay inside one budget; the memory
// store serves one process.
type BudgetStore interface {
	// Reserve takes one request from bucket's window at now. It reports
	// ok=false with the time to look again when the window is exhausted. A
	// bucket with no known window starts from preset when given, else with
	// a single probe request whose answer tells the window.
	// ttl is how long a reservation may stay unanswered before it no longer
	// counts (its process died; a live one answers within its timeout).
	Reserve(ctx context.Context, bucket string, now time.Time, preset *Budget, ttl time.Duration) (ok bool, reset time.Time, err error)
	// Release returns a reservation whose request was never answered with
	// rate-limit headers (it failed before reaching the service).
	Release(ctx context.Context, bucket string) error
	// Observe records what the service reported after a request (which
	// also ends that request's reservation).
	Observe(ctx context.Context, bucket string, rl RateLimit, now time.Time) error
}

// batchStore is a BudgetStore that serves the buckets of one request in
// one call (the Postgres store: one round trip instead of one per bucket).
type batchStore interface {
	// ReserveEach records the observations first (as ObserveEach), then
	// takes one request from each bucket whose window has room now (or is
	// over), as Reserve does, and reports which did. A bucket it reports
	// false for (no room, or no window yet) is left to Reserve.
	ReserveEach(ctx context.Context, observed []Observation, buckets []string, now time.Time, ttl time.Duration) ([]bool, error)
	// ObserveEach is Observe for each observation whose rate limit is not
	// nil, Release for the others.
	ObserveEach(ctx context.Context, observed []Observation) error
}

// Observation is what one answer told of one bucket: its rate limit at
// Now, or nil when the answer carried none (the reservation only ends).
type Observation struct {
	Bucket string
	RL     *RateLimit
	Now    time.Time
}

// Governor decides whether a request may be sent now. It does not send a
// request it knows will be refused: it waits up to MaxWait for the window to
// reset, and past that returns a *RetryAtError.
type Governor struct {
	Store   BudgetStore
	Presets map[string]Budget // by endpoint
	MaxWait time.Duration
	// InflightTTL bounds how long an unanswered reservation counts: a
	// process killed mid-request never answers, and its reservation must not
	// hold the window for ever. NewClient sets it from the request timeout.
	InflightTTL time.Duration
	Now         func() time.Time
	Sleep       func(ctx context.Context, d time.Duration) error
	// OnWait is called whenever the governor waits or defers (metrics).
	OnWait func(endpoint string, d time.Duration)
	// Log receives a line for every wait longer than LongWait (NewClient
	// sets it to the client's logger when nil).
	Log *zap.Logger
	// ObserveDelay, when positive, lets a store that reserves a request's
	// buckets in one call (the Postgres store) keep an answer's
	// observation of buckets with room to spare for up to this long: the
	// next reservation carries it in its own round trip, and a timer sends
	// what none carried. Until then the request still counts in flight, so
	// every process sees less room, never more. An answer that leaves a
	// bucket less than half its limit is recorded at once. Flush sends what
	// is kept.
	ObserveDelay time.Duration

	pendingMu sync.Mutex
	pending   []Observation
	flushing  *time.Timer

	// unlimitedUntil holds, by endpoint, the end of the window in which the
	// service answered it without any rate-limit header: until then its
	// requests reserve nothing (the store holds room for any number of them
	// anyway), so an unlimited endpoint costs no store call per request.
	mu             sync.Mutex
	unlimitedUntil map[string]time.Time
}

// NewGovernor returns a governor over store with the spec's known budgets.
func NewGovernor(store BudgetStore) *Governor {
	return &Governor{
		Store: store,
		Presets: map[string]Budget{EndpointAudienceUsers: {Limit: 1500, Window: time.Minute},
			EndpointTargetingCriteria: {Limit: 400, Window: 15 * time.Minute}},
		MaxWait:      70 * time.Second,
		Now:          time.Now,
		Sleep:        sleepCtx,
		ObserveDelay: defaultObserveDelay,
	}
}

// defaultObserveDelay is how long an observation with room to spare may
// wait for the next reservation (see Governor.ObserveDelay).
const defaultObserveDelay = 25 * time.Millisecond

// TotalCountSuffix marks the rate-limit key of requests using
// with_total_count, which the service limits separately and much lower (200
// per 15 minutes); their rate-limit headers describe that budget.
const TotalCountSuffix = " with_total_count"

// EndpointAudienceUsers is the rate-limit key of POST custom audience users.
const EndpointAudienceUsers = "POST /12/accounts/{account_id}/custom_audiences/{custom_audience_id}/users"

// EndpointTargetingCriteria is the rate-limit key of the targeting
// criteria list, whose category allows 400 requests per 15 minutes (spec
// targeting-and-more.md, Limits).
const EndpointTargetingCriteria = "GET /12/accounts/{account_id}/targeting_criteria"

// bucketsFor names the buckets of a request: the endpoint's, and the
// account's share of it when the request names an account. The service
// counts its windows per user and endpoint: a request signed for a user
// (user not "") has that user's buckets, so one user's exhausted window
// never holds back another user's requests, and every process acting for
// one user shares that user's windows.
func bucketsFor(endpoint, user, accountID string) []string {
	b := endpoint
	if user != "" {
		b += "|user:" + user
	}
	if accountID == "" {
		return []string{b}
	}
	return []string{b, b + "|account:" + accountID}
}

// Acquire reserves one request on every bucket of endpoint (and account)
// for user ("" for app-only and unsigned requests), or takes the
// reservation ctx carries for that request (see Reservation). It returns no bucket,
// having reserved nothing, for an endpoint known unlimited (see
// markUnlimited).
func (g *Governor) Acquire(ctx context.Context, endpoint, user, accountID string) ([]string, error) {
	if g.isUnlimited(endpoint) {
		return nil, nil
	}
	if r := reservationFrom(ctx); r != nil {
		if buckets, ok := r.take(ctx, g, endpoint, user, accountID); ok {
			return buckets, nil
		}
	}
	buckets := bucketsFor(endpoint, user, accountID)
	if ok, err := g.reserveEach(ctx, buckets); ok || err != nil {
		return buckets, err
	}
	for {
		// One bucket at a time, each look seeing every answer so far.
		_ = g.Flush(ctx)
		now := g.Now()
		var reserved []string
		var blockedUntil time.Time
		for i, b := range buckets {
			// A known budget is the endpoint's (per user), not the
			// account's share.
			var preset *Budget
			if p, ok := g.Presets[endpoint]; ok && i == 0 {
				preset = &p
			} else if strings.HasSuffix(endpoint, TotalCountSuffix) && i == 0 {
				preset = &Budget{Limit: 200, Window: 15 * time.Minute}
			}
			ok, reset, err := g.Store.Reserve(ctx, b, now, preset, g.inflightTTL())
			if err != nil {
				g.release(ctx, reserved)
				return nil, err
			}
			if !ok {
				blockedUntil = reset
				break
			}
			reserved = append(reserved, b)
		}
		if blockedUntil.IsZero() {
			return reserved, nil
		}
		g.release(ctx, reserved)
		wait := blockedUntil.Sub(now)
		if g.OnWait != nil {
			g.OnWait(endpoint, wait)
		}
		const reason = "rate-limit window exhausted"
		if wait > g.MaxWait {
			logWait(g.Log, now, endpoint, reason, blockedUntil, true)
			return nil, &RetryAtError{At: blockedUntil, Reason: reason, Endpoint: endpoint}
		}
		logWait(g.Log, now, endpoint, reason, blockedUntil, false)
		if err := g.Sleep(ctx, wait+50*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// reserveEach reserves every bucket at once when the store can and each
// has room now, the common case, in one call; otherwise it reserves
// nothing and Acquire takes the buckets one by one.
func (g *Governor) reserveEach(ctx context.Context, buckets []string) (bool, error) {
	bs, ok := g.Store.(batchStore)
	if !ok || len(buckets) < 2 {
		return false, nil
	}
	observed := g.takePending()
	oks, err := bs.ReserveEach(ctx, observed, buckets, g.Now(), g.inflightTTL())
	if err != nil {
		g.keepPending(observed)
		return false, err
	}
	var reserved []string
	for i, b := range buckets {
		if oks[i] {
			reserved = append(reserved, b)
		}
	}
	if len(reserved) == len(buckets) {
		return true, nil
	}
	g.release(ctx, reserved)
	return false, nil
}

func (g *Governor) inflightTTL() time.Duration {
	if g.InflightTTL <= 0 {
		return time.Minute
	}
	return g.InflightTTL
}

func (g *Governor) release(ctx context.Context, buckets []string) {
	for _, b := range buckets {
		_ = g.Store.Release(context.WithoutCancel(ctx), b)
	}
}

// Observe records the service's headers for a request's buckets.
func (g *Governor) Observe(ctx context.Context, buckets []string, user, account *RateLimit) {
	ctx = context.WithoutCancel(ctx)
	now := g.Now()
	observed := make([]Observation, len(buckets))
	for i, b := range buckets {
		observed[i] = Observation{Bucket: b, RL: account, Now: now}
		if i == 0 {
			observed[i].RL = user
		}
	}
	if bs, ok := g.Store.(batchStore); ok && len(buckets) > 1 {
		if g.ObserveDelay > 0 && roomToSpare(observed) {
			g.keepPending(observed)
			return
		}
		_ = bs.ObserveEach(ctx, append(g.takePending(), observed...))
		return
	}
	for _, o := range observed {
		if o.RL == nil {
			_ = g.Store.Release(ctx, o.Bucket)
			continue
		}
		_ = g.Store.Observe(ctx, o.Bucket, *o.RL, now)
	}
}

// roomToSpare says whether every observed window keeps half of its limit:
// an observation that may wait (see Governor.ObserveDelay). Past half, a
// reservation kept in flight by an answer not yet recorded could make
// another process find the window full when it is not, and wait for its
// reset.
func roomToSpare(observed []Observation) bool {
	for _, o := range observed {
		if o.RL != nil && o.RL.Remaining*2 < o.RL.Limit {
			return false
		}
	}
	return true
}

// keepPending keeps observations for the next reservation, and makes sure
// a timer sends them if none comes within ObserveDelay.
func (g *Governor) keepPending(observed []Observation) {
	g.pendingMu.Lock()
	defer g.pendingMu.Unlock()
	g.pending = append(g.pending, observed...)
	if g.flushing == nil {
		g.flushing = time.AfterFunc(g.ObserveDelay, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = g.Flush(ctx) // lost, the reservations end at their InflightTTL
		})
	}
}

// takePending hands over the kept observations.
func (g *Governor) takePending() []Observation {
	g.pendingMu.Lock()
	defer g.pendingMu.Unlock()
	observed := g.pending
	g.pending = nil
	if g.flushing != nil {
		g.flushing.Stop()
		g.flushing = nil
	}
	return observed
}

// Flush records the observations kept for the next reservation (see
// ObserveDelay) now. A process calls it before it exits. Observations it
// could not record are dropped: like those of a process that died, their
// reservations stop counting after InflightTTL.
func (g *Governor) Flush(ctx context.Context) error {
	observed := g.takePending()
	if len(observed) == 0 {
		return nil
	}
	return g.Store.(batchStore).ObserveEach(context.WithoutCancel(ctx), observed)
}

// unlimitedRequests is the room of a bucket the service does not limit.
const unlimitedRequests = 1 << 30

// unlimited is what a success without rate-limit headers tells the store: a
// window with room for any number of requests, ending at the next multiple
// of defaultPeriod (fixed, so that every such answer within one period
// reports the same window, and the store does not learn a period from
// answers a few seconds apart). At its end the bucket probes again.
func (g *Governor) unlimited() *RateLimit {
	now := g.Now()
	return &RateLimit{Limit: unlimitedRequests, Remaining: unlimitedRequests, Reset: now.Truncate(defaultPeriod).Add(defaultPeriod)}
}

// markUnlimited notes that the service answered endpoint with success and
// without any rate-limit header (neither the user's nor the account's) at
// now: its requests need no reservation until the window unlimited() tells
// the store ends. Endpoints with a known budget are always reserved.
func (g *Governor) markUnlimited(endpoint string, until time.Time) {
	if _, ok := g.Presets[endpoint]; ok || strings.HasSuffix(endpoint, TotalCountSuffix) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.unlimitedUntil == nil {
		g.unlimitedUntil = map[string]time.Time{}
	}
	g.unlimitedUntil[endpoint] = until
}

// forgetUnlimited ends markUnlimited's note: the service sent rate-limit
// headers for endpoint, whose requests are reserved again.
func (g *Governor) forgetUnlimited(endpoint string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.unlimitedUntil, endpoint)
}

func (g *Governor) isUnlimited(endpoint string) bool {
	g.mu.Lock()
	until, ok := g.unlimitedUntil[endpoint]
	g.mu.Unlock()
	return ok && g.Now().Before(until)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// newWindow is a bucket's first window: the preset when the budget is known,
// else a probe (one request whose answer tells the window).
func newWindow(now time.Time, preset *Budget) *window {
	if preset != nil {
		return &window{limit: preset.Limit, remaining: preset.Limit, reset: now.Add(preset.Window), period: preset.Window}
	}
	return &window{limit: 1, remaining: 1, reset: now.Add(defaultPeriod), probing: true}
}

// MemoryStore is a BudgetStore for one process.
type MemoryStore struct {
	mu      sync.Mutex
	windows map[string]*window
}

type window struct {
	limit, remaining, inflight int
	reset                      time.Time
	period                     time.Duration
	observed                   bool // reset and remaining come from the service, not a preset
	probing                    bool // the window rolled over; one probe is out to learn the next one
	inflightUntil              time.Time
}

// NewMemoryStore returns an empty in-process store.
func NewMemoryStore() *MemoryStore { return &MemoryStore{windows: map[string]*window{}} }

// probePoll is how soon a request blocked behind a window's probe looks again.
const probePoll = 200 * time.Millisecond

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// defaultPeriod is assumed for a window whose period is unknown once it has
// reset: the service's standard windows are 15 minutes.
const defaultPeriod = 15 * time.Minute

// Reserve implements BudgetStore.
func (m *MemoryStore) Reserve(_ context.Context, bucket string, now time.Time, preset *Budget, ttl time.Duration) (bool, time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.windows[bucket]
	if !ok {
		w = newWindow(now, preset)
		m.windows[bucket] = w
	}
	if w.inflight > 0 && now.After(w.inflightUntil) {
		w.inflight = 0 // reservations nobody answered in time
	}
	reserve := func() {
		w.inflight++
		if until := now.Add(ttl); until.After(w.inflightUntil) {
			w.inflightUntil = until
		}
	}
	if !now.Before(w.reset) {
		// The window is over, but the service's next one may already hold
		// requests (it opens at the first request after its reset, and
		// requests still in flight count in it): send one probe and take the
		// new window's numbers from its answer.
		period := w.period
		if period == 0 {
			period = defaultPeriod
		}
		w.remaining, w.reset, w.observed, w.probing = 1, now.Add(period), false, true
		reserve()
		return true, time.Time{}, nil
	}
	if w.remaining-w.inflight <= 0 {
		if w.probing {
			// Waiting for the probe's answer: look again shortly.
			return false, minTime(w.reset, now.Add(probePoll)), nil
		}
		return false, w.reset, nil
	}
	reserve()
	return true, time.Time{}, nil
}

// Release implements BudgetStore.
func (m *MemoryStore) Release(_ context.Context, bucket string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w, ok := m.windows[bucket]; ok && w.inflight > 0 {
		w.inflight--
	}
	return nil
}

// Observe implements BudgetStore: the service's count is the truth; in-flight
// reservations of this window are still to be counted by it.
func (m *MemoryStore) Observe(_ context.Context, bucket string, rl RateLimit, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.windows[bucket]
	if !ok {
		w = &window{inflight: 1}
		m.windows[bucket] = w
	}
	if w.inflight > 0 {
		w.inflight--
	}
	if ok && w.observed && rl.Reset.Before(w.reset.Add(-time.Second)) {
		return nil // a late answer from a window already over
	}
	sameWindow := ok && w.observed && absDuration(rl.Reset.Sub(w.reset)) <= time.Second
	w.limit = rl.Limit
	if sameWindow {
		w.remaining = min(w.remaining, rl.Remaining)
	} else {
		w.remaining = rl.Remaining
	}
	if w.period == 0 && ok && rl.Reset.After(w.reset.Add(time.Second)) && !w.reset.IsZero() {
		w.period = rl.Reset.Sub(w.reset)
	}
	w.reset, w.observed, w.probing = rl.Reset, true, false
	if !now.Before(w.reset) {
		w.reset = now.Add(time.Second)
	}
	return nil
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
