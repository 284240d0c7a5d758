package export

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/parquet-go/parquet-go"
)

// Options shape one export run.
type Options struct {
	// Out is the output folder: new, empty, or one this database exported
	// to before (see folder.go).
	Out string
	// Tables to export (empty: all).
	Tables []string
	// Full exports every row, not only those changed since the last run.
	Full bool
	// Trigger is recorded with the run (manual, schedule, demo).
	Trigger string
	// RowsPerFile and RowsPerRowGroup bound file size and memory (defaults
	// 1,000,000 and 50,000).
	RowsPerFile, RowsPerRowGroup int64
	// Format is FormatParquet (the default) or FormatIceberg.
	Format string
	// Catalog and Namespace name the Iceberg tables (default "adsync").
	Catalog, Namespace string
	// SnapshotRetention is how long an Iceberg table keeps a snapshot that
	// is no longer current (default 30 days).
	SnapshotRetention time.Duration
	// Progress is told the rows written so far per table (may be nil).
	Progress func(table string, rows int64)

	// afterRows, when set, is called after every row (tests interrupt runs with it).
	afterRows func(table string, rows int64) error
	// halt, when set, is asked at each commit step ("written", "placed",
	// "manifest": written, the run not committed yet; "committed") whether
	// the run stops there as if the process died: no cleanup.
	halt func(step string) bool
}

// withDefaults fills in what opts leaves unset.
func (opts Options) withDefaults() Options {
	if opts.RowsPerFile <= 0 {
		opts.RowsPerFile = 1_000_000
	}
	if opts.RowsPerRowGroup <= 0 {
		opts.RowsPerRowGroup = 50_000
	}
	if opts.Trigger == "" {
		opts.Trigger = "manual"
	}
	if opts.Format == "" {
		opts.Format = FormatParquet
	}
	if opts.Catalog == "" {
		opts.Catalog = DefaultIcebergName
	}
	if opts.Namespace == "" {
		opts.Namespace = DefaultIcebergName
	}
	if opts.SnapshotRetention <= 0 {
		opts.SnapshotRetention = DefaultSnapshotRetention
	}
	return opts
}

// TableResult is what a run exported of one table.
type TableResult struct {
	Name              string     `json:"name"`
	Rows              int64      `json:"rows"`
	SchemaFingerprint string     `json:"schema_fingerprint"`
	Low               *time.Time `json:"changed_after,omitempty"`
	High              time.Time  `json:"changed_up_to"`
	Files             []FileInfo `json:"files"`
	// Snapshot and MetadataLocation are the Iceberg snapshot the run
	// committed for the table (none when nothing changed).
	Snapshot         int64  `json:"snapshot_id,omitempty"`
	MetadataLocation string `json:"metadata_location,omitempty"`
}

// Result is a finished run (and its manifest).
type Result struct {
	RunID      int64     `json:"run_id"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Full       bool      `json:"full"`
	Partition  string    `json:"partition"`
	// OutputID is the id in the output folder's marker.
	OutputID string        `json:"output_id"`
	Tables   []TableResult `json:"tables"`
	// Iceberg is what an Iceberg export committed and collected.
	Iceberg *IcebergReport `json:"iceberg,omitempty"`
	// Manifest is the manifest's path.
	Manifest string `json:"-"`
}

// Pipeline is the sync_runs pipeline of exports.
const Pipeline = "export"

// lockKey serializes export runs on one database ("export" in ASCII).
const lockKey int64 = 0x6578706f7274

// errHalted is what a run stopped by Options.halt returns.
var errHalted = errors.New("export: halted")

// ErrExportRunning means another export holds the lock.
var ErrExportRunning = errors.New("another export is running")

// Run exports the selected tables to opts.Out, a folder or object-store
// prefix this database owns (see output.go). Files are written invisibly
// (a staging area, or multipart uploads not yet completed) and published
// only when every file of the run is complete; the manifest is written
// and the database records the run (and advances the output's watermarks)
// in one step, so a run is recorded succeeded only with its manifest, and
// fails (exits non-zero, recorded failed, undone) without it. A run that
// stops half-way leaves nothing visible once the next run has undone what
// it published, and that run exports the same rows again.
func Run(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Result, error) {
	tables, err := Select(opts.Tables)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if _, err := ParseOutput(opts.Out); err != nil {
		return nil, err
	}
	switch opts.Format {
	case FormatIceberg:
		return runIceberg(ctx, pool, tables, opts)
	case FormatParquet:
	default:
		return nil, &OutputError{fmt.Sprintf("export: format %q is not supported (parquet or iceberg)", opts.Format)}
	}
	unlock, err := lockExports(ctx, pool)
	if err != nil {
		return nil, err
	}
	defer unlock()

	out, err := openOutput(ctx, pool, opts.Out)
	if err != nil {
		return nil, err
	}
	defer out.close()
	if err := out.recover(ctx); err != nil {
		return nil, err
	}

	r := &exportRun{pool: pool, out: out, opts: opts, res: &Result{Full: opts.Full, OutputID: out.id()}}
	params := map[string]any{"out": out.where(), "output_id": out.id(), "tables": opts.Tables, "full": opts.Full}
	if r.res.RunID, r.res.StartedAt, err = store.StartRun(ctx, pool, Pipeline, opts.Trigger, params); err != nil {
		return nil, fmt.Errorf("export: recording the run: %w", err)
	}
	high, err := r.high(ctx)
	if err != nil {
		return r.fail(ctx, err)
	}
	r.res.Partition = "dt=" + high.UTC().Format("2006-01-02")
	all, err := r.writeTables(ctx, tables, high)
	if err != nil {
		return r.fail(ctx, err)
	}
	return r.complete(ctx, all)
}

// lockExports takes the database's export lock on a connection of its own,
// or returns ErrExportRunning when another export holds it. unlock
// releases the lock and the connection.
func lockExports(ctx context.Context, pool *pgxpool.Pool) (unlock func(), err error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockKey).Scan(&locked); err != nil {
		conn.Release()
		return nil, err
	}
	if !locked {
		conn.Release()
		return nil, ErrExportRunning
	}
	return func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockKey)
		conn.Release()
	}, nil
}

// exportRun is one Run once it holds the lock, its output and its run
// record: what it has written so far, to abort if it fails.
type exportRun struct {
	pool    *pgxpool.Pool
	out     output
	opts    Options
	res     *Result
	writers []*partWriter
}

// fail undoes the run (its writers' parts, what it placed in the output)
// and records it failed with err, which it returns.
func (r *exportRun) fail(ctx context.Context, err error) (*Result, error) {
	cleanup := context.WithoutCancel(ctx)
	for _, w := range r.writers {
		w.abort()
	}
	r.out.discard(cleanup, r.res.RunID)
	_, _ = store.EndRunAt(cleanup, r.pool, r.res.RunID, store.RunFailed, nil, truncate(store.Redact(err.Error()), 2000))
	return nil, err
}

// high refuses a run whose manifest already exists in the output (adsync
// did not write it in this run) and returns the change time the run
// exports up to (see safeHigh).
func (r *exportRun) high(ctx context.Context) (time.Time, error) {
	if exists, err := r.out.hasManifest(ctx, r.res.RunID); err != nil || exists {
		if err == nil {
			err = fmt.Errorf("export: the manifest of run %d already exists in %s and adsync did not write it in this run; it is left as it is", r.res.RunID, r.out.where())
		}
		return time.Time{}, err
	}
	return safeHigh(ctx, r.pool)
}

// writeTables writes each table's rows changed before high into parts not
// yet visible, and returns every file written.
func (r *exportRun) writeTables(ctx context.Context, tables []Table, high time.Time) ([]pendingFile, error) {
	var all []pendingFile
	for _, t := range tables {
		pw := newPartWriter(ctx, r.out, t, r.res.RunID, r.res.Partition, r.opts)
		r.writers = append(r.writers, pw)
		tr, err := exportTable(ctx, r.pool, r.out.id(), t, pw, high, r.opts)
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", t.Name, err)
		}
		r.res.Tables = append(r.res.Tables, tr)
		all = append(all, pw.written...)
	}
	return all, nil
}

// complete publishes the files written (the journal, then the files), then
// writes the manifest and records the run together (see commit). A test's
// halt may stop it between the steps, as a crash would.
func (r *exportRun) complete(ctx context.Context, all []pendingFile) (*Result, error) {
	halt := r.opts.halt
	if halt != nil && halt("written") {
		return nil, errHalted
	}
	if err := r.out.publish(ctx, r.res.RunID, all); err != nil {
		return r.fail(ctx, err)
	}
	if halt != nil && halt("placed") {
		return nil, errHalted
	}
	if err := commit(ctx, r.pool, r.out, r.res, halt); err != nil {
		if errors.Is(err, errHalted) {
			return nil, err
		}
		return r.fail(ctx, err)
	}
	// From here the run is committed, manifest included: what it kept for
	// recovery goes (or the next run drops it).
	if halt != nil && halt("committed") {
		return nil, errHalted
	}
	r.out.finish(ctx, r.res.RunID)
	return r.res, nil
}

// commit writes the run's manifest and records the run in one step: in the
// transaction that records its files and watermarks and ends it succeeded,
// the manifest is written before the transaction commits. So a run recorded
// succeeded has its manifest, and a manifest that cannot be written fails
// the run as any earlier step does (Run undoes it: its files and its
// manifest are removed, and it is recorded failed). A process that dies
// between the manifest and the commit leaves a run the database never
// committed: the next run undoes it, manifest included (see settle).
func commit(ctx context.Context, pool *pgxpool.Pool, out output, res *Result, halt func(step string) bool) error {
	counts := map[string]int64{}
	for _, tr := range res.Tables {
		counts[tr.Name] = tr.Rows
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for _, tr := range res.Tables {
			for _, f := range tr.Files {
				if _, err := tx.Exec(ctx, `INSERT INTO export_files (run_id, table_name, path, rows, bytes, sha256, schema_fingerprint, low, high, output_id)
					VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, res.RunID, tr.Name, f.Path, f.Rows, f.Bytes, f.SHA256, tr.SchemaFingerprint, tr.Low, tr.High, out.id()); err != nil {
					return fmt.Errorf("recording the run: %w", err)
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO export_state (output_id, table_name, watermark, last_run_id) VALUES ($1, $2, $3, $4)
				ON CONFLICT (output_id, table_name) DO UPDATE SET watermark = EXCLUDED.watermark, last_run_id = EXCLUDED.last_run_id, updated_at = now()`,
				out.id(), tr.Name, tr.High, res.RunID); err != nil {
				return fmt.Errorf("recording the run: %w", err)
			}
		}
		var err error
		if res.FinishedAt, err = store.EndRunAt(ctx, tx, res.RunID, store.RunSucceeded, counts, ""); err != nil {
			return fmt.Errorf("recording the run: %w", err)
		}
		if err := out.writeManifest(ctx, res); err != nil {
			return fmt.Errorf("writing the manifest: %w", err)
		}
		if halt != nil && halt("manifest") {
			return errHalted // rolled back, as a dead process's transaction is
		}
		return nil
	})
	if err != nil && !errors.Is(err, errHalted) {
		return fmt.Errorf("export: run %d: %w", res.RunID, err)
	}
	return err
}

// exportTable streams one table's changed rows into pw.
func exportTable(ctx context.Context, pool *pgxpool.Pool, outputID string, t Table, pw *partWriter, high time.Time, opts Options) (TableResult, error) {
	tr := TableResult{Name: t.Name, SchemaFingerprint: t.Fingerprint(), High: high, Files: []FileInfo{}}
	var low *time.Time
	if !opts.Full {
		var err error
		if low, err = outputState(ctx, pool, outputID, t.Name); err != nil {
			return tr, err
		}
	}
	tr.Low = low
	if low != nil && high.Before(*low) {
		// A writer older than the last run is still open: export nothing
		// new rather than move the watermark back (which would repeat rows).
		tr.High = *low
		high = *low
	}
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		// The sort of a large table otherwise spills to disk.
		if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '64MB'"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, t.query(), high, low)
		if err != nil {
			return err
		}
		defer rows.Close()
		n, err := pipeRows(rows, newRowBuilder(t, pw.run, typeMap(rows)), pw, func(n int64) error {
			if opts.Progress != nil && n%10000 == 0 {
				opts.Progress(t.Name, n)
			}
			if opts.afterRows != nil {
				return opts.afterRows(t.Name, n)
			}
			return nil
		})
		tr.Rows = n
		return err
	})
	if err != nil {
		return tr, err
	}
	if err := pw.closeFile(); err != nil {
		return tr, err
	}
	for _, p := range pw.written {
		tr.Files = append(tr.Files, p.info)
	}
	if opts.Progress != nil {
		opts.Progress(t.Name, tr.Rows)
	}
	return tr, nil
}

// query selects the table's rows changed in [$2, $1) ($2 may be null: from
// the start), its columns in leaf order, in the table's stable order.
func (t Table) query() string {
	return fmt.Sprintf("SELECT %s FROM %s WHERE (%s) < $1 AND ($2::timestamptz IS NULL OR (%s) >= $2) ORDER BY %s",
		strings.Join(t.selectList(), ", "), t.From, t.ChangedAt, t.ChangedAt, t.order())
}

// selectList is the table's columns as a query selects them, in leaf
// order: a JSON column as its text.
func (t Table) selectList() []string {
	leaves := t.leafOrder()
	cols := make([]string, len(leaves))
	for i, c := range leaves {
		cols[i] = c.expr()
		if c.Kind == JSON {
			cols[i] = "(" + cols[i] + ")::text"
		}
	}
	return cols
}

// order is the table's stable row order: OrderBy, else its change time.
func (t Table) order() string {
	if t.OrderBy == "" {
		return t.ChangedAt
	}
	return t.OrderBy
}

// rawRows is what pipeRows reads of a query's result: each row's values as
// Postgres sent them (pgx.Rows is one).
type rawRows interface {
	FieldDescriptions() []pgconn.FieldDescription
	Next() bool
	RawValues() [][]byte
	Err() error
}

// batchRows is how many rows go from the reader to the writer at once.
const batchRows = 1024

// rowBatch is rows whose values live in one slab (and their bytes in one
// arena), handed from the reader to the writer.
type rowBatch struct {
	rows  []parquet.Row
	slab  parquet.Row
	arena []byte
}

// rowWriter takes the rows pipeRows reads: a run's Parquet files
// (partWriter) or an Iceberg table's data files (icebergWriter).
type rowWriter interface {
	writeRows(rows []parquet.Row) error
}

// batchesInFlight bounds the batches between the reader and the writer (and
// so the memory they hold): the writer hands each batch back once written,
// and the reader fills it again, so a run allocates them once.
const batchesInFlight = 4

// pipeRows reads rows and writes them to pw on two goroutines: this one
// decodes the wire values into Parquet rows, the other encodes and
// compresses them, so both cores work. afterRow is called after each row.
// The writer copies every value it is given, so a written batch's slab and
// arena are filled again rather than garbage for the collector.
func pipeRows(rows rawRows, b *rowBuilder, pw rowWriter, afterRow func(n int64) error) (int64, error) {
	if err := b.check(rows.FieldDescriptions()); err != nil {
		return 0, err
	}
	p := startRowPipe(pw, len(rows.FieldDescriptions())+1)
	n, err := p.read(rows, b, afterRow)
	if werr := p.close(); err == nil {
		err = werr
	}
	return n, err
}

// rowPipe is what pipeRows' reader and writer share: the batches on their
// way to the writer, and those it wrote, on their way back.
type rowPipe struct {
	batches chan *rowBatch
	free    chan *rowBatch
	// done is closed when the writer has stopped; werr then says why, if
	// it stopped early.
	done chan struct{}
	werr error
	// perRow is the values of a row (its columns, and one to spare);
	// allocated counts the batches made.
	perRow, allocated int
}

// startRowPipe starts the writer of pw's batches of rows of perRow values.
func startRowPipe(pw rowWriter, perRow int) *rowPipe {
	p := &rowPipe{
		batches: make(chan *rowBatch, batchesInFlight),
		free:    make(chan *rowBatch, batchesInFlight+1),
		done:    make(chan struct{}),
		perRow:  perRow,
	}
	go func() {
		defer close(p.done)
		for bt := range p.batches {
			if p.werr == nil {
				p.werr = pw.writeRows(bt.rows)
			}
			p.free <- bt
		}
	}()
	return p
}

// read decodes rows into batches and sends each full one to the writer,
// the last one too; it stops early, with no error, when the writer has
// stopped (close returns why). It returns the rows read.
func (p *rowPipe) read(rows rawRows, b *rowBuilder, afterRow func(n int64) error) (int64, error) {
	fields := rows.FieldDescriptions()
	var n int64
	var bt *rowBatch
	for rows.Next() {
		if bt == nil {
			if bt = p.next(); bt == nil {
				return n, nil // the writer stopped: werr says why
			}
			b.arena = bt.arena
		}
		start := len(bt.slab)
		var err error
		if bt.slab, err = b.append(bt.slab, fields, rows.RawValues()); err != nil {
			return n, err
		}
		bt.rows = append(bt.rows, bt.slab[start:len(bt.slab):len(bt.slab)])
		n++
		if err := afterRow(n); err != nil {
			return n, err
		}
		if len(bt.rows) == batchRows {
			bt.arena = b.arena
			if !p.send(bt) {
				return n, nil
			}
			bt = nil
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if bt != nil && len(bt.rows) > 0 {
		bt.arena = b.arena
		p.send(bt)
	}
	return n, nil
}

// send hands bt to the writer; false when the writer has stopped.
func (p *rowPipe) send(bt *rowBatch) bool {
	select {
	case p.batches <- bt:
		return true
	case <-p.done:
		return false
	}
}

// next is an empty batch: a written one, or a new one while fewer than
// batchesInFlight+1 exist; nil when the writer has stopped.
func (p *rowPipe) next() *rowBatch {
	var bt *rowBatch
	if p.allocated <= batchesInFlight {
		select {
		case bt = <-p.free:
		default:
			p.allocated++
			bt = &rowBatch{rows: make([]parquet.Row, 0, batchRows), slab: make(parquet.Row, 0, batchRows*p.perRow*2)}
		}
	} else {
		select {
		case bt = <-p.free:
		case <-p.done:
			return nil
		}
	}
	bt.rows, bt.slab, bt.arena = bt.rows[:0], bt.slab[:0], bt.arena[:0]
	return bt
}

// close tells the writer no batch follows, waits for it to stop and
// returns its error.
func (p *rowPipe) close() error {
	close(p.batches)
	<-p.done
	return p.werr
}

// safeHigh is the change time before which rows are exported: now, or the
// start of the oldest transaction still open if that is earlier. Rows are
// stamped with now(), the start of the transaction that writes them, and a
// transaction may begin, read for a while and only then write: any open
// transaction may still commit rows stamped at its start. Rows stamped at or
// after the watermark belong to the next run, so each run exports the
// half-open interval [previous watermark, watermark) and no row is skipped
// or exported twice.
func safeHigh(ctx context.Context, pool *pgxpool.Pool) (time.Time, error) {
	var t time.Time
	err := pool.QueryRow(ctx, `SELECT LEAST(now(), COALESCE((SELECT min(xact_start) FROM pg_stat_activity
		WHERE xact_start IS NOT NULL AND pid <> pg_backend_pid() AND datname = current_database()
		AND backend_type = 'client backend'), now()))`).Scan(&t)
	return t, err
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
