package api

import (
	"context"
	"sync/atomic"
)

// Tally counts what the calls made with one context cost: the requests
// (each call of Do once, however many attempts it took) and the 429 answers
// they got (each one, apart from the requests: a call answered 429 and then
// served counts one request and one 429). A pipeline hangs a Tally on the
// context of one unit of work to report what that unit cost, while the
// client itself is shared by every unit of the process. A nil *Tally counts
// nothing.
type Tally struct {
	requests, rateLimited atomic.Int64
}

type tallyKey struct{}

// WithTally returns ctx whose calls count into t.
func WithTally(ctx context.Context, t *Tally) context.Context {
	return context.WithValue(ctx, tallyKey{}, t)
}

// TallyFrom returns the Tally of ctx, nil when it has none.
func TallyFrom(ctx context.Context) *Tally {
	t, _ := ctx.Value(tallyKey{}).(*Tally)
	return t
}

// AddRequest counts one request (for requests sent without Do, such as
// the download of a result file).
func (t *Tally) AddRequest() {
	if t != nil {
		t.requests.Add(1)
	}
}

// AddRateLimited counts one 429 answer.
func (t *Tally) AddRateLimited() {
	if t != nil {
		t.rateLimited.Add(1)
	}
}

// Take returns the counts so far and starts again from zero, so whoever
// records them records each once.
func (t *Tally) Take() (requests, rateLimited int) {
	if t == nil {
		return 0, 0
	}
	return int(t.requests.Swap(0)), int(t.rateLimited.Swap(0))
}
