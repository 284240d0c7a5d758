// Package store is adsync's Postgres layer: connections, upserts,
// checkpoints, run records and the registry of live workers.
//
// It owns the connection pool's settings and the shared tables of runs, units,
// checkpoints and workers. It must not call the service or River's client,
// must not write River's tables except to hand back a dead worker's jobs, and
// must not know an entity's fields (the sync/* packages describe their own
// tables).
package store
