package report

import "strings"

// MigrationFile is the migration that creates the report relations,
// relative to the repository's root; a test keeps it equal to
// MigrationSQL (go test ./sync/report -run TestMigration -update).
const MigrationFile = "migrations/sql/0030_reports.sql"

// migrationHead explains the generated migration.
const migrationHead = `-- Daily reports (generated from sync/report's levels and segments by
-- go test ./sync/report -run TestMigration -update; edit those, not this).
--
-- One view per level, from the unsegmented DAY rows of ad_stats, and one per
-- level and segmentation type, from the rows of that segmentation: date is
-- the account's local day, spend is billed_charge_local_micro / 1e6 (exact),
-- ctr, cpc and cpm are NULL where their denominator is zero. The account and
-- funding instrument levels sum their campaigns' rows.
`

// indexSQL lets an export read what changed in one relation since its last
// run, by the rows' fetched_at, without reading every row of ad_stats: a
// full export reads each of the many relations, most of them empty.
const indexSQL = `CREATE INDEX ad_stats_report_idx ON ad_stats (entity_type, (split_part(segment_type, ':', 1)), granularity, fetched_at);
`

// MigrationSQL is the migration creating every report relation: the
// metrics' type, the base views, then the relations.
func MigrationSQL() string {
	var b strings.Builder
	b.WriteString(migrationHead)
	b.WriteString("\n" + indexSQL + "\n" + typeSQL() + "\n" + baseSQL())
	for _, l := range Levels {
		if l.RolledUp {
			b.WriteString("\n" + rolledUpBaseSQL(l))
		}
	}
	for _, r := range Relations() {
		b.WriteString("\n" + r.ViewSQL())
	}
	return b.String()
}
