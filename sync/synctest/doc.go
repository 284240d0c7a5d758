// Package synctest builds what the pipeline packages' tests share without
// the jobs package: a migrated database, a pool on it, the fake service and
// a client configured for it, each cleaned up with the test. Tests that
// also need a River worker use jobs/jobstest, built on this one; a test
// binary that imports only synctest links none of the export's Iceberg and
// object-store dependencies.
//
// It is for tests only: production code must not import it.
package synctest
