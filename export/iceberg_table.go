package export

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5"
)

// touched is the set of partitions an incremental export rewrites (all:
// the whole table).
type touched struct {
	all      bool
	accounts []string
	months   []time.Time // beside accounts when the table has both
	keys     map[partitionKey]bool
}

// exportTable commits one snapshot of t holding its current rows in every
// partition a row changed in since the table's watermark (every partition
// on a full export or a new table); a table with no changed row gets none.
func (r *icebergRun) exportTable(ctx context.Context, t Table, high time.Time) (TableResult, error) {
	tr := TableResult{Name: t.Name, SchemaFingerprint: t.Fingerprint(), High: high, Files: []FileInfo{}}
	tbl, err := r.loadTable(ctx, t)
	if err != nil {
		return tr, err
	}
	var low *time.Time
	if !r.opts.Full {
		if low, err = watermark(tbl); err != nil {
			return tr, err
		}
	}
	tr.Low = low
	if low != nil && !high.After(*low) {
		tr.High = *low // nothing can have changed; never move a watermark back
		return tr, nil
	}
	w, err := newIcebergWriter(r.fs, t, tbl.Location(), tbl.Schema(), tbl.Spec(), r.runID, r.opts)
	if err != nil {
		return tr, err
	}
	var tp touched
	err = pgx.BeginTxFunc(ctx, r.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '64MB'"); err != nil {
			return err
		}
		if tp, err = changedPartitions(ctx, tx, t, w, low, high); err != nil || (!tp.all && len(tp.keys) == 0) {
			return err
		}
		tr.Rows, err = r.writeRows(ctx, tx, t, w, tp)
		return err
	})
	if err == nil {
		err = w.closeFile()
	}
	if err != nil {
		w.abort()
		return tr, err
	}
	if !tp.all && len(tp.keys) == 0 {
		return tr, nil
	}
	return r.commit(ctx, tbl, w, tp, tr)
}

// partitionExprs are the SQL expressions of t's partition sources, as the
// writer sees them: the account, and the first day of the date's month.
func partitionExprs(t Table, w *icebergWriter) []string {
	var out []string
	_, date := t.partitionColumns()
	for _, c := range t.Columns {
		if c.Name == "account_id" && w.accountCol >= 0 {
			out = append(out, "("+c.expr()+")")
		}
	}
	for _, c := range t.Columns {
		if c.Name == date && w.dateCol >= 0 {
			out = append(out, "date_trunc('month', "+c.expr()+")::date")
		}
	}
	return out
}

// changedPartitions finds the partitions holding rows changed in [low,
// high): all of them when low is nil or the table has no partitions.
func changedPartitions(ctx context.Context, tx pgx.Tx, t Table, w *icebergWriter, low *time.Time, high time.Time) (touched, error) {
	exprs := partitionExprs(t, w)
	if low == nil {
		return touched{all: true}, nil
	}
	if len(exprs) == 0 {
		var any bool
		err := tx.QueryRow(ctx, fmt.Sprintf("SELECT EXISTS (SELECT 1 FROM %s WHERE (%s) < $1 AND (%s) >= $2)", t.From, t.ChangedAt, t.ChangedAt), high, *low).Scan(&any)
		return touched{all: any}, err
	}
	sel := exprs
	if len(exprs) == 1 && w.dateCol >= 0 {
		sel = []string{"''", exprs[0]}
	} else if len(exprs) == 1 {
		sel = []string{exprs[0], "NULL::date"}
	}
	rows, err := tx.Query(ctx, fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE (%s) < $1 AND (%s) >= $2", strings.Join(sel, ", "), t.From, t.ChangedAt, t.ChangedAt), high, *low)
	if err != nil {
		return touched{}, err
	}
	tp := touched{keys: map[partitionKey]bool{}}
	for rows.Next() {
		var acct string
		var month *time.Time
		if err := rows.Scan(&acct, &month); err != nil {
			return tp, err
		}
		k := partitionKey{account: acct}
		if month != nil {
			k.month = monthOf(int32(floorDiv(month.Unix(), 86400)))
			tp.months = append(tp.months, *month)
		}
		tp.accounts = append(tp.accounts, acct)
		tp.keys[k] = true
	}
	return tp, rows.Err()
}

// writeRows writes the current rows of the touched partitions, ordered by
// partition, through w.
func (r *icebergRun) writeRows(ctx context.Context, tx pgx.Tx, t Table, w *icebergWriter, tp touched) (int64, error) {
	cols := t.selectList()
	exprs := partitionExprs(t, w)
	order := t.order()
	where, args := "true", []any{}
	if !tp.all {
		switch {
		case w.accountCol >= 0 && w.dateCol >= 0:
			where, args = fmt.Sprintf("(%s, %s) IN (SELECT * FROM unnest($1::text[], $2::date[]))", exprs[0], exprs[1]), []any{tp.accounts, tp.months}
		case w.accountCol >= 0:
			where, args = fmt.Sprintf("%s = ANY($1::text[])", exprs[0]), []any{tp.accounts}
		default:
			where, args = fmt.Sprintf("%s = ANY($1::date[])", exprs[0]), []any{tp.months}
		}
	}
	q := fmt.Sprintf("SELECT %s FROM %s WHERE %s ORDER BY %s", strings.Join(cols, ", "), t.From, where, strings.Join(append(exprs, order), ", "))
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	b := newRowBuilder(t, r.runID, typeMap(rows))
	b.micros = true
	return pipeRows(rows, b, w, func(n int64) error {
		if r.opts.Progress != nil && n%10000 == 0 {
			r.opts.Progress(t.Name, n)
		}
		if r.opts.afterRows != nil {
			return r.opts.afterRows(t.Name, n)
		}
		return nil
	})
}

// commit replaces the data files of the touched partitions with w's in one
// snapshot, through the catalog's compare-and-swap (iceberg-go retries it
// on a newer snapshot when another commit won, and fails if the files it
// replaces are gone).
func (r *icebergRun) commit(ctx context.Context, tbl *table.Table, w *icebergWriter, tp touched, tr TableResult) (TableResult, error) {
	var old []iceberg.DataFile
	if tbl.CurrentSnapshot() != nil {
		tasks, err := tbl.Scan().PlanFiles(ctx)
		if err != nil {
			return tr, fmt.Errorf("listing the current snapshot's files: %w", err)
		}
		for _, task := range tasks {
			if tp.all || tp.keys[w.fileKey(task.File)] {
				old = append(old, task.File)
			}
		}
	}
	var add []iceberg.DataFile
	for _, f := range w.written {
		add = append(add, f.file)
		tr.Files = append(tr.Files, f.info)
	}
	if len(old) == 0 && len(add) == 0 {
		return tr, nil
	}
	if r.opts.halt != nil && r.opts.halt("written") {
		return tr, errHalted
	}
	tx := tbl.NewTransaction()
	props := snapshotProps(tr.High, r.runID)
	var err error
	if len(old) == 0 {
		err = tx.AddDataFiles(ctx, add, props)
	} else {
		err = tx.ReplaceDataFilesWithDataFiles(ctx, old, add, props)
	}
	if err != nil {
		return tr, fmt.Errorf("staging the snapshot: %w", err)
	}
	if r.opts.halt != nil && r.opts.halt("manifest") {
		return tr, errHalted
	}
	committed, err := tx.Commit(ctx)
	if err != nil {
		return tr, fmt.Errorf("committing the snapshot: %w", err)
	}
	r.report.Snapshots++
	tr.Snapshot = committed.CurrentSnapshot().SnapshotID
	tr.MetadataLocation = committed.MetadataLocation()
	if r.opts.halt != nil && r.opts.halt("committed") {
		return tr, errHalted
	}
	return tr, nil
}

// fileKey is the partition of a data file of the table.
func (w *icebergWriter) fileKey(f iceberg.DataFile) partitionKey {
	var k partitionKey
	p := f.Partition()
	if v, ok := p[w.accountField].(string); ok && w.accountCol >= 0 {
		k.account = v
	}
	if v, ok := p[w.monthField].(int32); ok && w.dateCol >= 0 {
		k.month = v
	}
	return k
}
