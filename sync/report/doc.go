// Package report turns the stored analytics (ad_stats: one row per entity,
// placement, segment and bucket, money in micros) into the daily reports an
// analyst asks for: one relation per level (report_<level>_daily) and per
// level and segmentation type (report_<level>_by_<segment>_daily), with
// the account's and the entity's names, the currency, spend in currency
// units and the usual ratios. The relations are views over ad_stats and the
// entity tables, declared once here (levels x segments) and written into a
// migration by a test (go test ./sync/report -run TestMigration -update).
//
// It also reads them: Read answers adsync report and the worker's
// performance page.
//
// It owns the report relations' declarations and the queries over them; it
// must not write to the database outside the migration its declarations
// generate, nor compute metrics of its own: every number is the service's,
// summed.
package report
