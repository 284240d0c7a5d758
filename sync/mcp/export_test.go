package mcp

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ReadForTest runs fn as every tool reads: in a read-only transaction
// bounded by timeout.
func ReadForTest(ctx context.Context, pool *pgxpool.Pool, timeout time.Duration, fn func(pgx.Tx) error) error {
	s := &server{pool: pool, opts: Options{StatementTimeout: timeout}}
	return s.read(ctx, fn)
}
