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
