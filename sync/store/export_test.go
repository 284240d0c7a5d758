package store

// ClaimPrintsSQL is claimPrintsSQL, for the test of its plan.
var ClaimPrintsSQL = claimPrintsSQL

// EndAbandonedUnitsSQL and AbandonedRunsSQL are EndAbandoned's lookups,
// and RunForJobSQL RunForJob's, for the tests of their plans.
const (
	EndAbandonedUnitsSQL = endAbandonedUnitsSQL
	AbandonedRunsSQL     = abandonedRunsSQL
	RunForJobSQL         = runForJobSQL
	FinishRunSQL         = finishRunSQL
)
