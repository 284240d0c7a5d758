package export

import (
	"context"
	"encoding/json"
	"fmt"
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
// staging area before it moves into _manifests.
const manifestStaged = "manifest.json"

// writeManifest writes the run's manifest atomically and sets res.Manifest.
// A manifest names only files of its own run, so writing it again (after a
// crash) replaces the same content.
func (f *folder) writeManifest(_ context.Context, res *Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(f.stagingRoot(res.RunID), manifestStaged)
	// A manifest an earlier attempt at this run staged and did not place is
	// the run's own: it is written again. Anything else there is kept (and
	// refused by writeFileSync).
	if fi, err := os.Lstat(tmp); err == nil && fi.Mode().IsRegular() {
		_ = os.Remove(tmp)
	}
	if err := writeFileSync(tmp, append(b, '\n')); err != nil {
		return err
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
