package store

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Batcher sends a batch of statements in one round trip: a transaction,
// in which the batch runs, or a pool, where the batch is a transaction of
// its own (implicit: all of its statements take effect or none).
type Batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// BeginBatchFunc is pgx.BeginFunc whose BEGIN travels with the statements
// queue queues, in one round trip. Their results are read (the callbacks
// queued with them run) before fn runs in the transaction; an error there
// rolls it back, as fn's does. Otherwise the transaction commits.
func BeginBatchFunc(ctx context.Context, pool *pgxpool.Pool, queue func(b *pgx.Batch), fn func(pgx.Tx) error) error {
	b := &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{})
	queue(b)
	br := pool.SendBatch(ctx, b)
	tx := br.Tx()
	if err := br.Close(); err != nil {
		// Also when BEGIN failed: that releases the connection.
		_ = tx.Rollback(ctx)
		return err
	}
	return pgx.BeginFunc(ctx, begun{tx}, fn)
}

// begun hands pgx.BeginFunc a transaction already begun, so it runs fn
// and commits or rolls back as it does for one it began.
type begun struct{ tx pgx.Tx }

func (b begun) Begin(context.Context) (pgx.Tx, error) { return b.tx, nil }
