package audience

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// awaitPoll is how often Await reads an upload's progress.
const awaitPoll = 250 * time.Millisecond

// Await waits until every batch of upload id has ended (whoever sends
// them), handing each progress read to seen (nil: none), and returns the
// last. An interrupt leaves the upload for the same command to resume.
func Await(ctx context.Context, pool *pgxpool.Pool, id int64, seen func(Progress)) (Progress, error) {
	tick := time.NewTicker(awaitPoll)
	defer tick.Stop()
	for {
		p, err := LoadProgress(ctx, pool, id)
		if err != nil {
			return p, err
		}
		if seen != nil {
			seen(p)
		}
		if p.Finished() && p.State != StatePlanned {
			return p, nil
		}
		select {
		case <-ctx.Done():
			return p, fmt.Errorf("audience upload %d: interrupted; run the same command again to resume: %w", id, ctx.Err())
		case <-tick.C:
		}
	}
}
