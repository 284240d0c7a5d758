package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// manifestDir holds one manifest per run under the output directory.
const manifestDir = "_manifests"

func manifestPath(out string, run int64) string {
	return filepath.Join(out, manifestDir, fmt.Sprintf("run-%d.json", run))
}

// manifestStaged is the name a manifest is written under in the run's
// staging area, where it stays until the run is committed: what the run
// wrote, for undo to remove the manifest only if it is still that.
// manifestMoving is the copy that moves into _manifests.
const (
	manifestStaged = "manifest.json"
	manifestMoving = "manifest.json.tmp"
)

// writeManifest writes the run's manifest atomically, never over an
// existing one, and sets res.Manifest. A manifest names only files of its
// own run, so writing it again (after a crash) writes the same content.
func (f *folder) writeManifest(_ context.Context, res *Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	staging := f.stagingRoot(res.RunID)
	staged, tmp := filepath.Join(staging, manifestStaged), filepath.Join(staging, manifestMoving)
	for _, p := range []string{staged, tmp} {
		// What an earlier attempt at this run staged is the run's own: it
		// is written again. Anything else there is kept (and refused by
		// writeFileSync, which never opens an existing name).
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			_ = os.Remove(p)
		}
		if err := writeFileSync(p, b); err != nil {
			return err
		}
	}
	// Placed, not renamed: a manifest path someone filled meanwhile is kept.
	path := manifestPath(f.root, res.RunID)
	if err := place(tmp, path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	res.Manifest = path
	return nil
}

// removeManifest removes the manifest of a run that did not commit, if it
// is still byte for byte the one the run staged.
func (f *folder) removeManifest(run int64) error {
	stagedPath := filepath.Join(f.stagingRoot(run), manifestStaged)
	st, err := os.Lstat(stagedPath)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !st.Mode().IsRegular()) {
		return nil // the run wrote no manifest
	}
	if err != nil {
		return err
	}
	staged, err := os.ReadFile(stagedPath)
	if err != nil {
		return err
	}
	path := manifestPath(f.root, run)
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil // none, or not a file the run wrote (never opened: a FIFO would block)
	}
	placed, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(placed, staged) {
		return nil // none, or not what the run wrote: leave it
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// ReadManifest reads a manifest file.
func ReadManifest(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	r.Manifest = path
	return &r, nil
}

// loadRun rebuilds a committed run's result from the database.
func loadRun(ctx context.Context, pool *pgxpool.Pool, run int64) (*Result, error) {
	res := &Result{RunID: run}
	var params []byte
	var finished *time.Time
	if err := pool.QueryRow(ctx, `SELECT started_at, finished_at, params FROM sync_runs WHERE id = $1`, run).Scan(&res.StartedAt, &finished, &params); err != nil {
		return nil, fmt.Errorf("export: run %d: %w", run, err)
	}
	if finished != nil {
		res.FinishedAt = *finished
	}
	var p struct {
		Full bool `json:"full"`
	}
	_ = json.Unmarshal(params, &p)
	res.Full = p.Full
	rows, err := pool.Query(ctx, `SELECT table_name, path, rows, bytes, sha256, schema_fingerprint, low, high
		FROM export_files WHERE run_id = $1 ORDER BY table_name, path`, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byName := map[string]int{}
	for rows.Next() {
		var name string
		var f FileInfo
		var fp string
		var low *time.Time
		var high time.Time
		if err := rows.Scan(&name, &f.Path, &f.Rows, &f.Bytes, &f.SHA256, &fp, &low, &high); err != nil {
			return nil, err
		}
		i, ok := byName[name]
		if !ok {
			res.Tables = append(res.Tables, TableResult{Name: name, SchemaFingerprint: fp, Low: low, High: high})
			i = len(res.Tables) - 1
			byName[name] = i
			res.Partition = "dt=" + high.UTC().Format("2006-01-02")
		}
		res.Tables[i].Files = append(res.Tables[i].Files, f)
		res.Tables[i].Rows += f.Rows
	}
	return res, rows.Err()
}
