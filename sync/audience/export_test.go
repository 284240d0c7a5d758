package audience

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
