// Package store is adsync's Postgres layer: connections, upserts,
// checkpoints and run records.
//
// It owns the connection pool's settings and the shared tables of runs, units
// and checkpoints. It must not call the service or River, and must not know an
// entity's fields (the sync/* packages describe their own tables).
package store
