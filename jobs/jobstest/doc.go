// Package jobstest builds what pipeline tests share: a migrated database, the
// fake service, a service client and a running River worker, each cleaned up
// with the test.
//
// It owns the pipeline tests' shared setup and is for tests only: production
// code must not import it.
package jobstest
