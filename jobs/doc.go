// Package jobs wires adsync's pipelines onto River: job args, workers,
// queues, periodic schedules and the client's construction. Business logic
// lives in the sync/ and export packages; workers here only call it.
//
// Retries: every worker answers River through riverError, by what
// api.Explain says an error means. A wait the service named (a rate-limit
// window, a 429 or 503 with a reset) snoozes the job without spending an
// attempt; an answer no retry can change (a 4xx, bad credentials, a refused
// batch, an output adsync may not write) cancels it; anything else fails the
// attempt and River tries again with the worker's backoff (from 1 second,
// doubling to 5 minutes), which covers outages longer than the client's own
// bounded retries of short faults. A job River will not run again records
// its failure where its pipeline keeps state (unit, batch or run).
//
// It owns River's job kinds, queues, schedules and the mapping of errors to
// River's answers. It must not hold business logic or SQL of the pipelines'
// tables: a worker calls one function of a sync/* or export package.
package jobs
