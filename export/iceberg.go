package export

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// Export formats.
const (
	FormatParquet = "parquet"
	FormatIceberg = "iceberg"
)

// DefaultIcebergName is the default catalog name and namespace.
const DefaultIcebergName = "adsync"

// DefaultSnapshotRetention is how long an Iceberg table keeps a snapshot
// that is no longer current.
const DefaultSnapshotRetention = 30 * 24 * time.Hour

// Snapshot summary keys: the change time up to which the snapshot holds the
// table's rows (the next export's starting point), and the run.
const (
	summaryWatermark = "adsync.watermark"
	summaryRun       = "adsync.run"
)

// IcebergReport is what an Iceberg export's maintenance did.
type IcebergReport struct {
	Catalog   string `json:"catalog"`
	Namespace string `json:"namespace"`
	// Snapshots is how many tables got a new snapshot.
	Snapshots int `json:"snapshots"`
	// ExpiredSnapshots were older than the retention and not current.
	ExpiredSnapshots int `json:"expired_snapshots"`
	// RemovedFiles are files adsync wrote that no retained snapshot or
	// metadata file references any more.
	RemovedFiles int `json:"removed_files"`
}

// icebergRun is one Iceberg export's shared state.
type icebergRun struct {
	pool   *pgxpool.Pool
	cat    *sqlcat.Catalog
	fs     *icebergIO
	root   string // the output's root location (file:///... or s3://...)
	ns     string
	opts   Options
	runID  int64
	report IcebergReport
}

// runIceberg exports the selected tables as Iceberg tables under opts.Out,
// committed through the SQL catalog in this database (see docs/iceberg.md).
// Each table that changed gets one snapshot replacing the partitions its
// changed rows live in with their current rows; the snapshot's summary
// holds the watermark the next run starts from, so a table's state and its
// watermark commit together (the catalog's compare-and-swap of
// metadata_location). A run that stops half-way leaves every table on its
// last snapshot; what it wrote is removed by the next run's collection.
func runIceberg(ctx context.Context, pool *pgxpool.Pool, tables []Table, opts Options) (*Result, error) {
	release, err := lockExports(ctx, pool)
	if err != nil {
		return nil, err
	}
	defer release()
	out, err := openOutput(ctx, pool, opts.Out)
	if err != nil {
		return nil, err
	}
	defer out.close()

	res := &Result{Full: opts.Full, OutputID: out.id()}
	params := map[string]any{"out": out.where(), "output_id": out.id(), "tables": opts.Tables, "full": opts.Full,
		"format": FormatIceberg, "catalog": opts.Catalog, "namespace": opts.Namespace}
	if res.RunID, res.StartedAt, err = store.StartRun(ctx, pool, Pipeline, opts.Trigger, params); err != nil {
		return nil, fmt.Errorf("export: recording the run: %w", err)
	}
	fail := func(err error) (*Result, error) {
		_, _ = store.EndRunAt(context.WithoutCancel(ctx), pool, res.RunID, store.RunFailed, nil, truncate(store.Redact(err.Error()), 2000))
		return nil, err
	}
	r, ctx, err := openIcebergRun(ctx, pool, out, res.RunID, opts)
	if err != nil {
		return fail(err)
	}
	defer r.close()
	high, err := safeHigh(ctx, pool)
	if err != nil {
		return fail(err)
	}
	res.Partition = "snapshot"
	for _, t := range tables {
		tr, err := r.exportTable(ctx, t, high)
		if err != nil {
			if errors.Is(err, errHalted) {
				return nil, err
			}
			return fail(fmt.Errorf("export %s: %w", t.Name, err))
		}
		res.Tables = append(res.Tables, tr)
	}
	if err := r.maintain(ctx, tables); err != nil {
		return fail(err)
	}
	res.Iceberg = &r.report
	res.Manifest = fmt.Sprintf("catalog %s, namespace %s", opts.Catalog, r.ns)
	counts := map[string]int64{"iceberg.snapshots": int64(r.report.Snapshots),
		"iceberg.expired_snapshots": int64(r.report.ExpiredSnapshots), "iceberg.removed_files": int64(r.report.RemovedFiles)}
	for _, tr := range res.Tables {
		counts[tr.Name] = tr.Rows
	}
	if res.FinishedAt, err = store.EndRunAt(ctx, pool, res.RunID, store.RunSucceeded, counts, ""); err != nil {
		return nil, fmt.Errorf("export: recording the run: %w", err)
	}
	return res, nil
}

// openIcebergRun opens the catalog in this database and the output's file
// system, and creates the namespace if it is new. The returned context
// carries the file system for iceberg-go (see registerIcebergIO).
func openIcebergRun(ctx context.Context, pool *pgxpool.Pool, out output, run int64, opts Options) (*icebergRun, context.Context, error) {
	r := &icebergRun{pool: pool, ns: opts.Namespace, opts: opts, runID: run,
		report: IcebergReport{Catalog: opts.Catalog, Namespace: opts.Namespace}}
	switch o := out.(type) {
	case *folder:
		r.root = "file://" + strings.TrimSuffix(o.root, "/")
		r.fs = newIcebergIO(ctx, pool, o.id(), run, nil, "")
	case *prefix:
		r.root = o.loc
		r.fs = newIcebergIO(ctx, pool, o.id(), run, o.bucket, o.bucketName)
	default:
		return nil, ctx, fmt.Errorf("export: %s cannot hold Iceberg tables", out.where())
	}
	registerIcebergIO()
	ctx = context.WithValue(ctx, ioKey{}, r.fs)
	r.fs.ctx = ctx
	cat, err := sqlcat.NewCatalog(opts.Catalog, stdlib.OpenDBFromPool(pool), sqlcat.Postgres,
		iceberg.Properties{"init_catalog_tables": "false"})
	if err != nil {
		return nil, ctx, fmt.Errorf("export: opening the Iceberg catalog %s: %w", opts.Catalog, err)
	}
	r.cat = cat
	ns := table.Identifier{r.ns}
	exists, err := cat.CheckNamespaceExists(ctx, ns)
	if err == nil && !exists {
		err = cat.CreateNamespace(ctx, ns, iceberg.Properties{"location": r.root + "/" + r.ns})
		if errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
			err = nil
		}
	}
	if err != nil {
		r.close()
		return nil, ctx, fmt.Errorf("export: Iceberg namespace %s.%s: %w", opts.Catalog, r.ns, err)
	}
	return r, ctx, nil
}

func (r *icebergRun) close() { _ = r.cat.Close() }

// location is where table t lives: <output>/<namespace>/<table>.
func (r *icebergRun) location(t Table) string { return r.root + "/" + r.ns + "/" + t.Name }

// loadTable loads t's Iceberg table, creating it when it is new, and
// brings its schema to t's columns (added columns, dropped ones). A table
// of the catalog that lives elsewhere than this output is refused: the
// output owns its tables.
func (r *icebergRun) loadTable(ctx context.Context, t Table) (*table.Table, error) {
	ident := table.Identifier{r.ns, t.Name}
	loc := r.location(t)
	tbl, err := r.cat.LoadTable(ctx, ident)
	if errors.Is(err, catalog.ErrNoSuchTable) {
		sc := t.IcebergSchema()
		spec, err := t.icebergSpec(sc)
		if err != nil {
			return nil, err
		}
		tbl, err = r.cat.CreateTable(ctx, ident, sc, catalog.WithLocation(loc), catalog.WithPartitionSpec(&spec),
			catalog.WithProperties(iceberg.Properties{"format-version": "2", "write.parquet.compression-codec": "zstd"}))
		if errors.Is(err, catalog.ErrTableAlreadyExists) {
			tbl, err = r.cat.LoadTable(ctx, ident) // another export created it first
		}
		if err != nil {
			return nil, fmt.Errorf("creating the Iceberg table: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("loading the Iceberg table: %w", err)
	}
	if strings.TrimSuffix(tbl.Location(), "/") != loc {
		return nil, &OwnershipError{Folder: r.root, Reason: fmt.Sprintf("the catalog's table %s.%s.%s lives at %s, not in this output (export it with another namespace)",
			r.opts.Catalog, r.ns, t.Name, tbl.Location())}
	}
	add, drop, err := t.schemaChanges(tbl.Schema())
	if err != nil || (len(add) == 0 && len(drop) == 0) {
		return tbl, err
	}
	tx := tbl.NewTransaction()
	us := tx.UpdateSchema(true, false)
	for _, c := range add {
		us = us.AddColumn([]string{c.Name}, icebergType(c.Kind, 0), "", false, nil)
	}
	for _, name := range drop {
		us = us.DeleteColumn([]string{name})
	}
	if err := us.Commit(); err != nil {
		return nil, fmt.Errorf("updating the schema: %w", err)
	}
	if tbl, err = tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("committing the schema update: %w", err)
	}
	return tbl, nil
}

// watermark is the change time up to which tbl's current snapshot holds
// the rows (nil: no snapshot, or none written by adsync).
func watermark(tbl *table.Table) (*time.Time, error) {
	s := tbl.CurrentSnapshot()
	if s == nil || s.Summary == nil {
		return nil, nil
	}
	v, ok := s.Summary.Properties[summaryWatermark]
	if !ok {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: %s %q: %w", s.SnapshotID, summaryWatermark, v, err)
	}
	return &t, nil
}

// snapshotProps are the summary properties of a run's snapshot.
func snapshotProps(high time.Time, run int64) iceberg.Properties {
	return iceberg.Properties{summaryWatermark: high.UTC().Format(time.RFC3339Nano), summaryRun: strconv.FormatInt(run, 10)}
}
