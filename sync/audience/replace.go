package audience

import (
	"encoding/json"
	"fmt"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/jackc/pgx/v5"
)

// stageRows is how many file rows are copied into the staging tables at once.
const stageRows = 5000

// DefaultMaxDelete is how many of the identifiers adsync knows an audience
// holds a replace may delete without Force: 10%. A nightly replace of a CRM
// list churns a few percent; a truncated, filtered or wrong file deletes
// far more, and a deleted member is gone from every campaign that targets
// the audience.
var DefaultMaxDelete = bound.Percent(10)

// A replace is planned in two steps. stageReplace stages the input's users in
// temporary tables and compares them with the audience's stored membership
// (audience_members, one row per identifier type and hash), counting what
// the plan sends, so the bounds are applied before any batch is stored.
// batchReplace then stores the batches: a row with at least one identifier
// not yet a member is sent as Update, whole (its identifiers stay together
// as one user object); every stored identifier absent from the file is sent
// as Delete, one identifier per user object. Rows and identifiers are read
// back in pages so memory stays flat whatever the file's size.

// What a replace sends, as conditions shared by the counts and the batches
// ($1 is the audience): a staged row r to add, a stored member m to delete.
const (
	rowToAdd = `EXISTS (
		SELECT 1 FROM audience_plan_ids i
		WHERE i.row_no = r.row_no AND NOT EXISTS (
			SELECT 1 FROM audience_members m WHERE m.audience_id = $1 AND m.type = i.type AND m.hash = i.hash))`
	memberToDelete = `m.audience_id = $1 AND NOT EXISTS (
		SELECT 1 FROM audience_plan_ids i WHERE i.type = m.type AND i.hash = m.hash)`
)

// stageReplace stages the users read and fills sum.
func (p *planner) stageReplace(sum *Summary) error {
	ctx, tx := p.ctx, p.tx
	for _, q := range []string{
		`CREATE TEMP TABLE audience_plan_rows (row_no integer PRIMARY KEY, body bytea NOT NULL) ON COMMIT DROP`,
		`CREATE TEMP TABLE audience_plan_ids (row_no integer NOT NULL, type text NOT NULL, hash text NOT NULL) ON COMMIT DROP`,
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	var rows, ids [][]any
	flush := func() error {
		if len(rows) > 0 {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"audience_plan_rows"}, []string{"row_no", "body"}, pgx.CopyFromRows(rows)); err != nil {
				return fmt.Errorf("stage rows: %w", err)
			}
		}
		if len(ids) > 0 {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"audience_plan_ids"}, []string{"row_no", "type", "hash"}, pgx.CopyFromRows(ids)); err != nil {
				return fmt.Errorf("stage identifiers: %w", err)
			}
		}
		rows, ids = rows[:0], ids[:0]
		return nil
	}
	rowNo := int32(0)
	err := p.users.replay(func(u hashing.HashedUser) error {
		rowNo++
		rows = append(rows, []any{rowNo, u.AppendJSON(nil)})
		for _, t := range hashing.Types() {
			for _, v := range u.Values(t) {
				ids = append(ids, []any{rowNo, string(t), v})
			}
		}
		if len(rows) >= stageRows {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	for _, q := range []string{
		`CREATE INDEX ON audience_plan_ids (row_no)`,
		`CREATE INDEX ON audience_plan_ids (type, hash)`,
		`ANALYZE audience_plan_rows`,
		`ANALYZE audience_plan_ids`,
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	err = tx.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM audience_plan_rows r WHERE `+rowToAdd+`),
		       (SELECT count(*) FROM audience_members m WHERE `+memberToDelete+`),
		       (SELECT count(*) FROM audience_members m WHERE m.audience_id = $1)`,
		p.upload.AudienceID).Scan(&sum.Adds, &sum.Deletes, &sum.Known)
	if err != nil {
		return err
	}
	sum.Unchanged = int64(rowNo) - sum.Adds
	return nil
}

// batchReplace stores the batches of a staged replace.
func (p *planner) batchReplace() error {
	ctx, tx := p.ctx, p.tx
	// Updates: rows with an identifier the audience does not hold yet.
	b := p.newBatcher(OpUpdate)
	after := int32(0)
	for {
		page, err := tx.Query(ctx, `
			SELECT r.row_no, r.body FROM audience_plan_rows r
			WHERE r.row_no > $2 AND `+rowToAdd+`
			ORDER BY r.row_no LIMIT $3`, p.upload.AudienceID, after, stageRows)
		if err != nil {
			return err
		}
		type row struct {
			no   int32
			body []byte
		}
		got, err := pgx.CollectRows(page, func(r pgx.CollectableRow) (row, error) {
			var x row
			err := r.Scan(&x.no, &x.body)
			return x, err
		})
		if err != nil {
			return err
		}
		for _, x := range got {
			if err := b.add(x.body); err != nil {
				return err
			}
			after = x.no
		}
		if len(got) < stageRows {
			break
		}
	}
	if err := b.close(); err != nil {
		return err
	}

	// Deletes: stored identifiers absent from the file.
	d := p.newBatcher(OpDelete)
	lastType, lastHash := "", ""
	var user []byte
	for {
		page, err := tx.Query(ctx, `
			SELECT m.type, m.hash FROM audience_members m
			WHERE (m.type, m.hash) > ($2, $3) AND `+memberToDelete+`
			ORDER BY m.type, m.hash LIMIT $4`, p.upload.AudienceID, lastType, lastHash, stageRows)
		if err != nil {
			return err
		}
		type ident struct{ typ, hash string }
		got, err := pgx.CollectRows(page, func(r pgx.CollectableRow) (ident, error) {
			var x ident
			err := r.Scan(&x.typ, &x.hash)
			return x, err
		})
		if err != nil {
			return err
		}
		// The page is read whole before storing batches: the connection
		// serves one statement at a time.
		for _, x := range got {
			user = appendIdentifier(user[:0], x.typ, x.hash)
			if err := d.add(user); err != nil {
				return err
			}
			lastType, lastHash = x.typ, x.hash
		}
		if len(got) < stageRows {
			break
		}
	}
	return d.close()
}

// appendIdentifier appends the user object holding one identifier.
func appendIdentifier(dst []byte, typ, value string) []byte {
	dst = append(dst, `{"`...)
	dst = append(dst, typ...)
	dst = append(dst, `":[`...)
	q, _ := json.Marshal(value) // a string always encodes
	dst = append(dst, q...)
	return append(dst, "]}"...)
}
