package export

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adsync/adsync/export/outfile"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// An export folder is owned by one database. Its marker file says which;
// adsync writes into a folder only when the marker names this database, or
// when it creates the marker itself because the folder is new or empty (or
// holds an earlier adsync's export, which it adopts). Inside a folder it
// owns, it removes or replaces only what its own records in that folder
// list: the staging area of a run that never committed, and the files that
// run's journal names with their exact size and SHA-256. Nothing else in the
// folder is ever touched.
//
//	OUT/_adsync_export.json                  the marker
//	OUT/_manifests/run-N.json                one per committed run
//	OUT/_staging/run-N/...                   a run in progress (files, then its journal)
//	OUT/<table>/dt=YYYY-MM-DD/part-N-K.parquet
const (
	stagingDir  = "_staging"
	journalName = "journal.json"
)

// folder is an export folder this database owns.
type folder struct {
	root     string
	outputID string
	pool     *pgxpool.Pool
	placed   []string // files this process moved into place for the current run
}

// claimFolder returns the export folder at root, creating its marker when
// the folder is new or empty or holds an earlier adsync's export, and
// refusing a folder that holds anything else or that another database owns.
func claimFolder(ctx context.Context, pool *pgxpool.Pool, root string) (*folder, error) {
	if st, err := os.Stat(root); err == nil && !st.IsDir() {
		return nil, &OwnershipError{Folder: root, Reason: "it is a file, not a folder"}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("export: output folder %s: %w", root, err)
	}
	m, err := claim(ctx, pool, folderMarker{root})
	if err != nil {
		return nil, err
	}
	return &folder{root: root, outputID: m.OutputID, pool: pool}, nil
}

// folderMarker is a folder's marker file, as claim sees it.
type folderMarker struct{ root string }

func (f folderMarker) where() string      { return f.root }
func (f folderMarker) markerPath() string { return filepath.Join(f.root, markerName) }

func (f folderMarker) readMarker(context.Context) ([]byte, error) {
	return os.ReadFile(f.markerPath())
}

func (f folderMarker) claimable(context.Context) (bool, error) { return claimable(f.root) }

func (f folderMarker) createMarker(_ context.Context, b []byte, m marker) error {
	return createMarker(f.root, b, m)
}

// markerTemp names the temporary file a marker is written to before it is
// linked into place.
func markerTemp(name string) bool {
	return strings.HasPrefix(name, "."+markerName+".") && strings.HasSuffix(name, ".tmp")
}

// claimable says whether a folder without a marker may become an export
// folder: it is empty (leftover marker temporaries aside), or it holds an
// earlier adsync's export (adopt). Anything else is refused.
func claimable(root string) (adopt bool, err error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return false, fmt.Errorf("export: output folder %s: %w", root, err)
	}
	var others []string
	for _, e := range entries {
		if !markerTemp(e.Name()) {
			others = append(others, e.Name())
		}
	}
	if len(others) == 0 {
		return false, nil
	}
	if earlierExport(root) {
		return true, nil
	}
	return false, &OwnershipError{Folder: root, Reason: fmt.Sprintf(
		"it is not empty (%s) and has no %s marker, so adsync did not create it; export into a new or empty folder",
		othersShown(others), markerName)}
}

// earlierExport says whether root holds an export written before folders
// had markers: a _manifests folder with at least one run manifest.
func earlierExport(root string) bool {
	paths, _ := filepath.Glob(filepath.Join(root, manifestDir, "run-*.json"))
	for _, p := range paths {
		if m, err := ReadManifest(p); err == nil && m.RunID > 0 {
			return true
		}
	}
	return false
}

// createMarker writes the marker b (of m) to a temporary file and links it
// into place, which fails if a marker appeared meanwhile (then that one
// stands).
func createMarker(root string, b []byte, m marker) error {
	tmp := filepath.Join(root, "."+markerName+"."+m.OutputID[:8]+".tmp")
	if err := writeFileSync(tmp, b); err != nil {
		return fmt.Errorf("export: writing the marker of %s: %w", root, err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, filepath.Join(root, markerName)); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("export: writing the marker of %s: %w", root, err)
	}
	// Earlier claims' temporaries (a claim interrupted before its link).
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			if markerTemp(e.Name()) {
				_ = os.Remove(filepath.Join(root, e.Name()))
			}
		}
	}
	syncDir(root)
	return nil
}

// journal lists the files a run moves out of its staging area, written
// before the first move, so a run that dies half-way can be undone exactly.
type journal struct {
	RunID int64      `json:"run_id"`
	Files []FileInfo `json:"files"`
}

func (f *folder) stagingRoot(run int64) string {
	return filepath.Join(f.root, stagingDir, fmt.Sprintf("run-%d", run))
}

// recover finishes or undoes what earlier runs left in the folder's staging
// area. A run the database recorded as committed gets its manifest (written
// again if the run stopped before it); a run that did not commit has every
// file its journal names removed from its final place, if the file there is
// still the one it wrote (same size and SHA-256). Only the staging area and
// journaled files are touched.
func (f *folder) recover(ctx context.Context) error {
	entries, err := os.ReadDir(filepath.Join(f.root, stagingDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("export: %s: %w", f.root, err)
	}
	for _, e := range entries {
		var run int64
		if _, err := fmt.Sscanf(e.Name(), "run-%d", &run); err != nil || !e.IsDir() || fmt.Sprintf("run-%d", run) != e.Name() {
			continue // not ours: leave it
		}
		if err := settle(ctx, f.pool, f, run, func() error { return f.undo(run) },
			"interrupted; its files were removed by the next export"); err != nil {
			return err
		}
		f.removeStaging(run)
	}
	return nil
}

// settle ends what an earlier run left in output o: a run the database
// recorded as committed gets its manifest (written again if the run stopped
// before it); a run that did not commit is undone and recorded as failed
// with why.
func settle(ctx context.Context, pool *pgxpool.Pool, o output, run int64, undo func() error, why string) error {
	committed, err := runCommitted(ctx, pool, run, o.id())
	if err != nil {
		return err
	}
	if !committed {
		if err := undo(); err != nil {
			return err
		}
		return store.EndRun(ctx, pool, run, store.RunFailed, nil, why)
	}
	if has, err := o.hasManifest(ctx, run); err != nil || has {
		return err
	}
	res, err := loadRun(ctx, pool, run)
	if err != nil {
		return err
	}
	res.OutputID = o.id()
	return o.writeManifest(ctx, res)
}

func runCommitted(ctx context.Context, pool *pgxpool.Pool, run int64, outputID string) (bool, error) {
	var ok bool
	err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sync_runs WHERE id = $1 AND pipeline = 'export'
		AND outcome = 'succeeded' AND params->>'output_id' = $2)`, run, outputID).Scan(&ok)
	return ok, err
}

// undo removes the manifest and the files the journal of an uncommitted run
// names from their final places, each only if it is still byte for byte what
// the run wrote.
func (f *folder) undo(run int64) error {
	if err := f.removeManifest(run); err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(f.stagingRoot(run), journalName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the run never moved a file
	}
	if err != nil {
		return err
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("export: the journal of run %d in %s is unreadable (%v); remove %s by hand after checking it",
			run, f.root, err, f.stagingRoot(run))
	}
	for _, fi := range j.Files {
		p := filepath.Join(f.root, filepath.FromSlash(fi.Path))
		if !withinRoot(f.root, p) {
			continue
		}
		if sum, size, err := fileSHA256(p); err == nil && size == fi.Bytes && sum == fi.SHA256 {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// removeStaging removes a run's staging area: the files adsync writes there
// (parts, journal, manifest) and then the folders, if empty.
func (f *folder) removeStaging(run int64) {
	dir := f.stagingRoot(run)
	prefix := fmt.Sprintf("part-%d-", run)
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		n := d.Name()
		if (strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ".parquet")) || n == journalName || n == manifestStaged || n == manifestMoving {
			_ = os.Remove(p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i]) // fails, and so keeps, a folder holding anything else
	}
	_ = os.Remove(filepath.Join(f.root, stagingDir))
}

// writeJournal records the files a run is about to move into place.
func (f *folder) writeJournal(run int64, files []FileInfo) error {
	b, _ := json.Marshal(journal{RunID: run, Files: files})
	return writeFileSync(filepath.Join(f.stagingRoot(run), journalName), b)
}

// place moves a staged file to its final path without ever replacing,
// following or writing into what is there: a name already taken (a file, a
// symbolic link, a FIFO) is an error, and what holds it is kept.
func place(staged, final string) error {
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	err := outfile.Place(staged, final)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists and adsync did not write it in this run; it is left as it is", final)
	}
	return err
}

func withinRoot(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}

// writeFileSync writes b, durably, to a new file at path. Anything already
// there (a file, a symbolic link, a FIFO) is an error and is left as it is:
// the folder may hold what adsync did not write, and a link would lead the
// write out of it.
func writeFileSync(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// newUUID is a random (version 4) UUID; a dependency for 16 random bytes
// is not worth it.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// outputState reads the output's watermark of a table.
func outputState(ctx context.Context, pool *pgxpool.Pool, outputID, table string) (*time.Time, error) {
	var wm time.Time
	err := pool.QueryRow(ctx, `SELECT watermark FROM export_state WHERE output_id = $1 AND table_name = $2`, outputID, table).Scan(&wm)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &wm, nil
}

func (f *folder) where() string { return f.root }
func (f *folder) id() string    { return f.outputID }
func (f *folder) close()        {}

func (f *folder) hasManifest(_ context.Context, run int64) (bool, error) {
	_, err := os.Lstat(manifestPath(f.root, run))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// localFile is a file being written in a run's staging area.
type localFile struct {
	f   *os.File
	tmp string
}

func (l *localFile) Write(p []byte) (int, error) { return l.f.Write(p) }

func (l *localFile) complete() error {
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (l *localFile) abort() {
	_ = l.f.Close()
	_ = os.Remove(l.tmp)
}

// create starts rel in the run's staging area, at the same relative path
// it will have under the root.
func (f *folder) create(_ context.Context, run int64, rel string) (fileSink, error) {
	tmp := filepath.Join(f.stagingRoot(run), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(tmp), 0o755); err != nil {
		return nil, err
	}
	fh, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644) // a new file, as writeFileSync's
	if err != nil {
		return nil, err
	}
	return &localFile{f: fh, tmp: tmp}, nil
}

// publish writes the run's journal and then links every file into place.
func (f *folder) publish(_ context.Context, run int64, files []pendingFile) error {
	if len(files) == 0 {
		return nil
	}
	infos := make([]FileInfo, len(files))
	for i, p := range files {
		infos[i] = p.info
	}
	if err := f.writeJournal(run, infos); err != nil {
		return fmt.Errorf("export: writing the run's journal: %w", err)
	}
	dirs := map[string]bool{}
	for _, p := range files {
		final := filepath.Join(f.root, filepath.FromSlash(p.rel))
		if err := place(p.sink.(*localFile).tmp, final); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		f.placed = append(f.placed, final)
		dirs[filepath.Dir(final)] = true
	}
	for d := range dirs {
		syncDir(d)
	}
	return nil
}

// discard removes what this process placed for run a moment ago and the
// run's staging area.
func (f *folder) discard(_ context.Context, run int64) {
	_ = f.removeManifest(run)
	for _, p := range f.placed {
		_ = os.Remove(p)
	}
	f.placed = nil
	f.removeStaging(run)
}

func (f *folder) finish(_ context.Context, run int64) { f.removeStaging(run) }
