package export

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// maintain runs after the run's commits: snapshots older than the retention
// are expired (never a table's current one), then the files adsync wrote
// into this output that nothing retained references any more are removed:
// an interrupted run's, a refused commit's, an expired snapshot's.
func (r *icebergRun) maintain(ctx context.Context, tables []Table) error {
	for _, t := range tables {
		if err := r.expire(ctx, t); err != nil {
			return fmt.Errorf("export %s: expiring snapshots: %w", t.Name, err)
		}
	}
	n, err := r.collect(ctx)
	r.report.RemovedFiles = n
	if err != nil {
		return fmt.Errorf("export: removing unreferenced files: %w", err)
	}
	return nil
}

// expire drops t's snapshots older than the retention, but the current.
func (r *icebergRun) expire(ctx context.Context, t Table) error {
	tbl, err := r.cat.LoadTable(ctx, table.Identifier{r.ns, t.Name})
	if err != nil {
		return err
	}
	before := len(tbl.Metadata().Snapshots())
	if before <= 1 {
		return nil
	}
	tx := tbl.NewTransaction()
	// Files are removed by collect, which removes only what adsync wrote.
	if err := tx.ExpireSnapshots(table.WithOlderThan(r.opts.SnapshotRetention), table.WithRetainLast(1), table.WithPostCommit(false)); err != nil {
		return err
	}
	after, err := tx.Commit(ctx)
	if err != nil {
		return err
	}
	r.report.ExpiredSnapshots += before - len(after.Metadata().Snapshots())
	return nil
}

// collect removes the files of this output's journal that no table of the
// catalog (any catalog name or namespace in this database) references from
// its current metadata: its metadata files (current, previous and logged),
// every retained snapshot's manifest list, manifests and data files.
func (r *icebergRun) collect(ctx context.Context) (int, error) {
	referenced, err := r.referenced(ctx)
	if err != nil {
		return 0, err
	}
	rows, err := r.pool.Query(ctx, `SELECT path FROM export_iceberg_files WHERE output_id = $1`, r.fs.outputID)
	if err != nil {
		return 0, err
	}
	var paths []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return 0, err
		}
		if !referenced[p] {
			paths = append(paths, p)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	removed := 0
	for _, p := range paths {
		if err := r.fs.inner.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("removing %s: %w", p, err)
		}
		if _, err := r.pool.Exec(ctx, `DELETE FROM export_iceberg_files WHERE path = $1 AND output_id = $2`, p, r.fs.outputID); err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// referenced is every file the catalog's tables under this output's root
// reference.
func (r *icebergRun) referenced(ctx context.Context) (map[string]bool, error) {
	rows, err := r.pool.Query(ctx, `SELECT metadata_location, coalesce(previous_metadata_location, '') FROM iceberg_tables
		WHERE starts_with(metadata_location, $1)`, r.root+"/")
	if err != nil {
		return nil, err
	}
	var locs [][2]string
	for rows.Next() {
		var l [2]string
		if err := rows.Scan(&l[0], &l[1]); err != nil {
			return nil, err
		}
		locs = append(locs, l)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ref := map[string]bool{}
	fsF := func(context.Context) (icebergio.IO, error) { return r.fs, nil }
	for _, l := range locs {
		ref[l[0]], ref[l[1]] = true, true
		tbl, err := table.NewFromLocation(ctx, nil, l[0], fsF, nil)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", l[0], err)
		}
		if err := addReferences(ref, tbl, r.fs); err != nil {
			return nil, err
		}
	}
	return ref, nil
}

// addReferences adds what tbl's metadata references to ref.
func addReferences(ref map[string]bool, tbl *table.Table, fsys *icebergIO) error {
	meta := tbl.Metadata()
	for e := range meta.PreviousFiles() {
		ref[e.MetadataFile] = true
	}
	for _, s := range meta.Snapshots() {
		ref[s.ManifestList] = true
		manifests, err := s.Manifests(fsys)
		if err != nil {
			return fmt.Errorf("snapshot %d: %w", s.SnapshotID, err)
		}
		for _, m := range manifests {
			ref[m.FilePath()] = true
			entries, err := m.FetchEntries(fsys, true) // a deleted entry is live only in an older snapshot, which lists it itself
			if err != nil {
				return fmt.Errorf("manifest %s: %w", m.FilePath(), err)
			}
			for _, e := range entries {
				ref[e.DataFile().FilePath()] = true
			}
		}
	}
	return nil
}
