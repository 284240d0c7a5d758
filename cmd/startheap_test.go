package adsynccmd

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/require"
)

// Not parallel: it changes the process's GOGC.
func TestStartHeapRaisesGOGCUntilTheNextCollectionAndLeavesASetGOGCAlone(t *testing.T) {
	if v, ok := os.LookupEnv("GOGC"); ok {
		t.Setenv("GOGC", v) // restored after
		os.Unsetenv("GOGC")
	}
	original := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(original) })

	startHeap()
	require.Equal(t, uint64(800), gogc(), "a 32 MB goal is GOGC=800 of the runtime's 4 MB")
	for i := 0; gogc() != 100; i++ {
		require.Less(t, i, 1000, "after a collection GOGC is what it was")
		runtime.GC() // the sentinel is garbage: its finalizer is queued
		runtime.Gosched()
	}

	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	startHeap()
	require.Equal(t, uint64(150), gogc(), "a GOGC the user set is kept")
}

func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
