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
	"syscall"
	"time"

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
	markerName   = "_adsync_export.json"
	markerFormat = "adsync-export"
	stagingDir   = "_staging"
	journalName  = "journal.json"
)

// marker is the content of an export folder's marker file.
type marker struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	OutputID   string    `json:"output_id"`
	DatabaseID string    `json:"database_id"`
	Database   string    `json:"database"` // for people: name and host, never a credential
	CreatedAt  time.Time `json:"created_at"`
	// Adopted is set when the folder held an earlier adsync's export.
	Adopted bool `json:"adopted,omitempty"`
}

// OwnershipError is an output adsync refuses to write into.
type OwnershipError struct {
	Folder string
	Reason string
}

// Permanent tells api.Explain that retrying cannot help: the folder stays
// what it is until someone changes it.
func (e *OwnershipError) Permanent() bool { return true }

func (e *OwnershipError) Error() string {
	return fmt.Sprintf("export: refusing to write into %s: %s", e.Folder, e.Reason)
}

// folder is an export folder this database owns.
type folder struct {
	root     string
	outputID string
}

// database is this database's identity as a marker records it.
type database struct {
	id, desc string
}

func thisDatabase(ctx context.Context, pool *pgxpool.Pool) (database, error) {
	var d database
	var name string
	if err := pool.QueryRow(ctx, `SELECT database_id::text, current_database() FROM adsync_database`).Scan(&d.id, &name); err != nil {
		return d, fmt.Errorf("export: reading this database's id: %w", err)
	}
	cc := pool.Config().ConnConfig
	d.desc = fmt.Sprintf("%q on %s", name, cc.Host)
	if !strings.HasPrefix(cc.Host, "/") {
		d.desc = fmt.Sprintf("%q on %s:%d", name, cc.Host, cc.Port)
	}
	return d, nil
}

// claimFolder returns the export folder at root, creating its marker when
// the folder is new or empty or holds an earlier adsync's export, and
// refusing a folder that holds anything else or that another database owns.
func claimFolder(ctx context.Context, pool *pgxpool.Pool, root string) (*folder, error) {
	db, err := thisDatabase(ctx, pool)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(root); err == nil && !st.IsDir() {
		return nil, &OwnershipError{Folder: root, Reason: "it is a file, not a folder"}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("export: output folder %s: %w", root, err)
	}
	for attempt := 0; ; attempt++ {
		m, err := readMarker(root)
		switch {
		case err == nil:
			if m.DatabaseID != db.id {
				return nil, &OwnershipError{Folder: root, Reason: fmt.Sprintf(
					"its marker %s says database %s (%s) owns it, and this is database %s (%s); export each database into its own folder (or move %s away if its files are no longer needed)",
					markerName, m.DatabaseID, m.Database, db.id, db.desc, root)}
			}
			if _, err := pool.Exec(ctx, `INSERT INTO export_outputs (output_id, location, adopted) VALUES ($1, $2, $3)
				ON CONFLICT (output_id) DO UPDATE SET location = EXCLUDED.location`, m.OutputID, root, m.Adopted); err != nil {
				return nil, fmt.Errorf("export: recording output %s: %w", root, err)
			}
			return &folder{root: root, outputID: m.OutputID}, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		case attempt > 0:
			return nil, fmt.Errorf("export: output folder %s: its marker vanished while claiming it", root)
		}
		adopt, err := claimable(root)
		if err != nil {
			return nil, err
		}
		m = marker{Format: markerFormat, Version: 1, OutputID: newUUID(), DatabaseID: db.id, Database: db.desc,
			CreatedAt: time.Now().UTC().Truncate(time.Second), Adopted: adopt}
		if err := createMarker(root, m); err != nil {
			return nil, err
		}
		// Read it back: a process claiming the folder at the same time may
		// have won, and then its marker decides.
	}
}

func readMarker(root string) (marker, error) {
	var m marker
	path := filepath.Join(root, markerName)
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Format != markerFormat || m.OutputID == "" || m.DatabaseID == "" {
		return m, &OwnershipError{Folder: root, Reason: fmt.Sprintf("%s is not an adsync export marker (move it away, or choose another folder)", path)}
	}
	return m, nil
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
	shown := others
	if len(shown) > 3 {
		shown = append(shown[:3:3], "...")
	}
	return false, &OwnershipError{Folder: root, Reason: fmt.Sprintf(
		"it is not empty (%s) and has no %s marker, so adsync did not create it; export into a new or empty folder",
		strings.Join(shown, ", "), markerName)}
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

// createMarker writes m to a temporary file and links it into place, which
// fails if a marker appeared meanwhile (then that one stands).
func createMarker(root string, m marker) error {
	b, _ := json.MarshalIndent(m, "", "  ")
	tmp := filepath.Join(root, "."+markerName+"."+m.OutputID[:8]+".tmp")
	if err := writeFileSync(tmp, append(b, '\n')); err != nil {
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
func (f *folder) recover(ctx context.Context, pool *pgxpool.Pool) error {
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
		committed, err := runCommitted(ctx, pool, run, f.outputID)
		if err != nil {
			return err
		}
		if committed {
			if _, err := os.Stat(manifestPath(f.root, run)); errors.Is(err, fs.ErrNotExist) {
				res, err := loadRun(ctx, pool, run)
				if err != nil {
					return err
				}
				res.OutputID = f.outputID
				if err := f.writeManifest(res); err != nil {
					return err
				}
			}
		} else {
			if err := f.undo(run); err != nil {
				return err
			}
			if err := store.EndRun(ctx, pool, run, store.RunFailed, nil, "interrupted; its files were removed by the next export"); err != nil {
				return err
			}
		}
		f.removeStaging(run)
	}
	return nil
}

func runCommitted(ctx context.Context, pool *pgxpool.Pool, run int64, outputID string) (bool, error) {
	var ok bool
	err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sync_runs WHERE id = $1 AND pipeline = 'export'
		AND outcome = 'succeeded' AND params->>'output_id' = $2)`, run, outputID).Scan(&ok)
	return ok, err
}

// undo removes the files the journal of an uncommitted run names from their
// final places, each only if it is still byte for byte what the run wrote.
func (f *folder) undo(run int64) error {
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
		if (strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ".parquet")) || n == journalName || n == manifestStaged {
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

// place moves a staged file to its final path without ever replacing a file
// there: a name already taken is an error, and what holds it is kept.
func place(staged, final string) error {
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	err := os.Link(staged, final)
	switch {
	case err == nil:
		return os.Remove(staged)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("export: %s already exists and adsync did not write it in this run; it is left as it is", final)
	case errors.Is(err, syscall.EXDEV), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.ENOTSUP):
		// A file system without hard links: check, then rename.
		if _, err := os.Lstat(final); err == nil {
			return fmt.Errorf("export: %s already exists and adsync did not write it in this run; it is left as it is", final)
		}
		return os.Rename(staged, final)
	default:
		return err
	}
}

func withinRoot(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}

func writeFileSync(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
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
