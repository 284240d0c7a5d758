// Package jobstest builds what pipeline tests that run jobs share, on top of
// sync/synctest (a migrated database, the fake service, a client): worker
// dependencies, a running River worker, a job run to its end, and a
// database synced and pulled from the fake, each cleaned up with the test.
//
// It is for tests only: production code must not import it.
package jobstest
