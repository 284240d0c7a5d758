// Package stats pulls performance analytics (spec analytics.md) into
// Postgres: per account and span it asks which entities were active, then
// asks for stats only for those ids (in groups of at most 20), only for the
// placements they list, over their activity rounded out to the
// granularity's buckets, and stores each answer in one transaction that
// replaces what an earlier pull stored for the same ids and span.
//
// Days are the account's days: a DAY request starts at midnight of the
// wanted day in the account's time zone written with the zone's offset of
// the current day (the service's rule), and rows keep both the local date and
// the bucket's UTC start.
//
// It owns the analytics' requests, async jobs and tables. It must not call
// River (jobs runs it), and its requests to the service go through package
// api's client (a finished job's result file, a plain download from the address
// the service gives, aside).
package stats
