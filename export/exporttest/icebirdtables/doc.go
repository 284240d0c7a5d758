// Package icebirdtables describes export's tables as exporttest's Iceberg
// reader compares them, for the tests outside package export (exporttest
// cannot import export: export's own tests import exporttest).
//
// It owns that one adapter and is for tests only: production code must not
// import it.
package icebirdtables
