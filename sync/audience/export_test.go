package audience

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsync/adsync/hashing"
)

// BenchBatcher exposes the batcher to the external benchmarks.
type BenchBatcher struct{ b *batcher }

// NewBatcherForBench returns a batcher with the service's limits that
// discards full bodies, calling flushed for each.
func NewBatcherForBench(flushed func()) BenchBatcher {
	return BenchBatcher{newBatcher(OpUpdate, nil, nil, 0, 0, func(string, []byte, int) error { flushed(); return nil })}
}

// Add adds one user object.
func (b BenchBatcher) Add(user []byte) error { return b.b.add(user) }

// Close flushes the last body.
func (b BenchBatcher) Close() error { return b.b.close() }

// PlanBatchesForBench does what Plan does with an add's input before
// anything is stored or sent: a file's checksum, then reading,
// normalizing and hashing its users into the spool (checked against the
// checksum; a query's users summed into its digest), then encoding and
// batching them from the spool. Each full body goes to flushed instead of
// the database. pool is where a query without a source URL runs.
func PlanBatchesForBench(ctx context.Context, pool *pgxpool.Pool, o PlanOptions, flushed func(body []byte, users int)) (hashing.Report, error) {
	var report hashing.Report
	src, err := newSource(pool, &o)
	if err != nil {
		return report, err
	}
	sum, err := src.checksum(ctx)
	if err != nil {
		return report, err
	}
	o.Operation, o.Mode = OperationUpdate, ModeAdd
	p := &planner{ctx: ctx, o: o, src: src, upload: &Upload{Checksum: sum}, sumUsers: sum == "",
		flush: func(_ string, body []byte, users int) error { flushed(body, users); return nil }}
	err = p.readSource(&report)
	defer func() { _ = p.users.Close() }()
	if err != nil {
		return report, err
	}
	var s Summary
	err = p.runAdd(&report, &s)
	return report, err
}
