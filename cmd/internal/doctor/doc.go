// Package doctor is adsync doctor: it prints every setting with where its
// value came from and the configured audiences, then one line per check
// (ok, warn, FAIL or skip) with what to do, naming the setting to correct
// and where it was set. The checks are those of the packages that own what
// they check: the database's migrations (migrations.Status), the service
// and the clock (api.ProbeService), the export output (export.CheckOutput),
// the temporary folder (audience.CheckTempDir) and each audience's source
// (audience.CheckDefinition); this package composes them and gives the
// advice.
//
// It owns doctor's output and advice. It must not change anything it checks
// (no migration, no file left behind, nothing sent to an audience) and must
// not print a secret's value.
package doctor
