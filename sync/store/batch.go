package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
// rolls it back, as fn's does. Otherwise the transaction commits, unless fn
// committed it with its last statements (sendCommitting): the COMMIT then
// travelled with them.
func BeginBatchFunc(ctx context.Context, pool *pgxpool.Pool, queue func(b *pgx.Batch), fn func(pgx.Tx) error) error {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release() // a connection left in a transaction is closed, not pooled
	b := &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{})
	queue(b)
	br := c.SendBatch(ctx, b)
	tx := br.Tx()
	if err := br.Close(); err != nil {
		_ = tx.Rollback(ctx)
		return err
	}
	return pgx.BeginFunc(ctx, begun{&batchTx{Tx: tx}}, fn)
}

// begun hands pgx.BeginFunc a transaction already begun, so it runs fn
// and commits or rolls back as it does for one it began.
type begun struct{ tx pgx.Tx }

func (b begun) Begin(context.Context) (pgx.Tx, error) { return b.tx, nil }

// batchTx is BeginBatchFunc's transaction: sendCommitting may end it with
// its last statements, after which it takes no statement (they would run
// outside it) and Commit and Rollback send nothing.
type batchTx struct{ pgx.Tx }

// errTxEnded refuses a statement after the transaction's commit.
var errTxEnded = errors.New("store: the transaction was committed with its last batch")

// ended says the connection is out of the transaction: its last batch
// committed it (or a failed COMMIT ended it).
func (t *batchTx) ended() bool { return t.Conn().PgConn().TxStatus() == 'I' }

func (t *batchTx) Commit(ctx context.Context) error {
	if t.ended() {
		return nil
	}
	return t.Tx.Commit(ctx)
}

func (t *batchTx) Rollback(ctx context.Context) error {
	if t.ended() {
		return pgx.ErrTxClosed
	}
	return t.Tx.Rollback(ctx)
}

func (t *batchTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if t.ended() {
		return nil, errTxEnded
	}
	return t.Tx.Begin(ctx)
}

func (t *batchTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.ended() {
		return pgconn.CommandTag{}, errTxEnded
	}
	return t.Tx.Exec(ctx, sql, args...)
}

func (t *batchTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.ended() {
		return nil, errTxEnded
	}
	return t.Tx.Query(ctx, sql, args...)
}

func (t *batchTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.ended() {
		return errRow{}
	}
	return t.Tx.QueryRow(ctx, sql, args...)
}

func (t *batchTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.ended() {
		return pgx.FailedBatchResults(b, errTxEnded)
	}
	return t.Tx.SendBatch(ctx, b)
}

func (t *batchTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if t.ended() {
		return 0, errTxEnded
	}
	return t.Tx.CopyFrom(ctx, table, columns, src)
}

type errRow struct{}

func (errRow) Scan(...any) error { return errTxEnded }

// sendCommitting sends b in tx as the transaction's last statements: when
// tx is BeginBatchFunc's, the COMMIT is queued after them, in the same
// round trip; otherwise the caller commits as usual.
func sendCommitting(ctx context.Context, tx pgx.Tx, b *pgx.Batch) pgx.BatchResults {
	if _, ok := tx.(*batchTx); ok {
		b.Queue("COMMIT")
	}
	return tx.SendBatch(ctx, b)
}
