package store

// ClaimPrintsSQL is claimPrintsSQL, for the test of its plan.
var ClaimPrintsSQL = claimPrintsSQL
