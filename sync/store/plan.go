package store

import "github.com/jackc/pgx/v5"

// PlanEachCall returns args led by the query mode that sends a statement
// without preparing it: Postgres plans it at each call, for its tables as
// they are then, in one round trip (a statement new to a connection takes
// two when prepared). Statements that read an entity's table by account
// (ChangedRecords, Sweep, an entity's parent sweep) are sent so.
//
// Postgres keeps the plan of a prepared statement after five calls when
// that plan costs no more than planning anew, until an ANALYZE of its
// tables. A plan made while a table holds few rows or none (a first load,
// a load into an emptied table, between two automatic ANALYZEs) reads the
// table whole, which is then cheapest; kept while the load fills the
// table, it reads every row the other accounts store, at every call. The
// planning costs Postgres a fraction of a millisecond; parameters are
// typed by their Go type. A statement queued in a batch has the batch's
// mode: the claim of prints is written to be read by its key whatever its
// plan (see claimPrintsSQL).
func PlanEachCall(args ...any) []any {
	return append([]any{pgx.QueryExecModeExec}, args...)
}

// QueueKeptPlans queues, first in b, the setting that has Postgres run each
// of b's prepared statements with the plan it keeps for the statement,
// from the first call on a connection, until b's transaction (b's
// implicit one, or the one b begins) ends.
//
// Postgres otherwise plans a prepared statement for its parameters' values
// at each of its first five calls on each connection, again after each
// VACUUM or ANALYZE of a table it reads, and at every call when the kept
// plan is estimated to cost more. A unit's start and end statements read
// and write bookkeeping rows by their keys, where a plan for the values
// finds nothing better: an unchanged re-sync of 200 units spent about as
// much of Postgres's time planning them as running them. Statements that
// read an entity's table are planned at each call instead (PlanEachCall),
// and never queued after this.
func QueueKeptPlans(b *pgx.Batch) {
	b.Queue(`SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`)
}
