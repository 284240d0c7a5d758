package api

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Reservation is one request's reservation made ahead, in a batch the
// caller sends with statements of its own (Client.QueueReservation): the
// round trip a request would spend reserving, saved. The first request of
// the same endpoint, user and account whose context carries it
// (WithReservation) takes it instead of reserving; Release gives back one
// that no request took.
type Reservation struct {
	gov                     *Governor
	endpoint, user, account string
	buckets                 []string
	observed                []Observation

	mu    sync.Mutex
	ok    []bool // per bucket, once the batch's results are read
	taken bool   // taken by a request, or released
}

// QueueReservation queues in b the reservation of one request of endpoint
// (its rate-limit key) signed for the user whose id is user, for account
// (see Governor.QueueReservation).
func (c *Client) QueueReservation(b *pgx.Batch, endpoint, user, accountID string) *Reservation {
	return c.gov.QueueReservation(b, endpoint, user, accountID)
}

// QueueReservation queues in b the reservation of one request of endpoint
// for user and account, as Acquire would make it in one round trip, with
// the observations the next reservation would carry. b must be sent to the
// database of g's store. It returns nil, having queued nothing, when the
// store does not keep its windows in Postgres or the endpoint is known
// unlimited (its requests reserve nothing). When b is not sent, or fails,
// call Unsent.
func (g *Governor) QueueReservation(b *pgx.Batch, endpoint, user, accountID string) *Reservation {
	if _, ok := g.Store.(PGStore); !ok || g.isUnlimited(endpoint) {
		return nil
	}
	r := &Reservation{gov: g, endpoint: endpoint, user: user, account: accountID,
		buckets: bucketsFor(endpoint, user, accountID), observed: g.takePending()}
	r.ok = make([]bool, len(r.buckets))
	queueObservations(b, r.observed)
	now := g.Now()
	for i, bucket := range r.buckets {
		b.Queue(reserveSQL, reserveArgs(bucket, now, g.inflightTTL())...).Exec(func(tag pgconn.CommandTag) error {
			r.mu.Lock()
			r.ok[i] = tag.RowsAffected() == 1
			r.mu.Unlock()
			return nil
		})
	}
	return r
}

// Unsent hands back what r took from the governor when its batch failed:
// the observations go to the next reservation, and nothing was reserved.
func (r *Reservation) Unsent() {
	if r.end() {
		r.gov.keepPending(r.observed)
	}
}

// end marks r taken, once: false when r is nil or was taken already.
func (r *Reservation) end() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ended := r.taken
	r.taken = true
	return !ended
}

// take hands a request of (g, endpoint, user, account) the reservation,
// once: ok is false when r is not that request's, was taken, or did not
// reserve every bucket (the buckets it did reserve are given back, and the
// request reserves as usual).
func (r *Reservation) take(ctx context.Context, g *Governor, endpoint, user, accountID string) (buckets []string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.taken || r.gov != g || r.endpoint != endpoint || r.user != user || r.account != accountID {
		return nil, false
	}
	r.taken = true
	reserved := r.reserved()
	if len(reserved) == len(r.buckets) {
		return r.buckets, true
	}
	g.release(ctx, reserved)
	return nil, false
}

// reserved lists the buckets r's batch reserved; r.mu is held.
func (r *Reservation) reserved() []string {
	var reserved []string
	for i, b := range r.buckets {
		if r.ok[i] {
			reserved = append(reserved, b)
		}
	}
	return reserved
}

// Release gives back the buckets r reserved when no request took them (a
// unit that ended without asking, or asked as another user): one round
// trip, and none when a request took r.
func (r *Reservation) Release(ctx context.Context) {
	if !r.end() {
		return
	}
	r.mu.Lock()
	reserved := r.reserved()
	r.mu.Unlock()
	var release []Observation
	for _, b := range reserved {
		release = append(release, Observation{Bucket: b}) // no rate limit: a release
	}
	if len(release) > 0 {
		_ = r.gov.Store.(batchStore).ObserveEach(context.WithoutCancel(ctx), release)
	}
}

type reservationKey struct{}

// WithReservation returns ctx carrying r for the first request that
// matches it (see Reservation).
func WithReservation(ctx context.Context, r *Reservation) context.Context {
	if r == nil {
		return ctx
	}
	return context.WithValue(ctx, reservationKey{}, r)
}

// reservationFrom is the reservation ctx carries, nil for none.
func reservationFrom(ctx context.Context) *Reservation {
	r, _ := ctx.Value(reservationKey{}).(*Reservation)
	return r
}
