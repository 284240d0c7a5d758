package exporttest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/adsync/adsync/fixtures/handbook"
)

// File is what DuckDB reports of one file.
type File struct {
	File    string `json:"file"`
	Rows    int64  `json:"rows"`
	Columns []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"columns"`
}

// Result holds every file's report and every query's rows.
type Result struct {
	Files   []File                      `json:"files"`
	Queries map[string][]map[string]any `json:"queries"`
	// Millis is each query's run time inside DuckDB, in milliseconds.
	Millis map[string]float64 `json:"millis"`
	// CPUMillis is the CPU time DuckDB's process used while each query ran
	// (every thread), in milliseconds.
	CPUMillis map[string]float64 `json:"cpu_millis"`
}

// testdata is export/testdata.
func testdata() string {
	return filepath.Join(handbook.Root(), "export", "testdata")
}

// Duck reads files (row counts and column types) and runs queries with DuckDB.
func Duck(t testing.TB, files []string, queries map[string]string) Result {
	t.Helper()
	dir := testdata()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		t.Fatalf("DuckDB's Node API is missing: run make test-deps (bash .ci/test-deps): %v", err)
	}
	req, _ := json.Marshal(map[string]any{"files": files, "queries": queries})
	cmd := exec.Command("node", filepath.Join(dir, "duckdb_check.mjs"), string(req))
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("duckdb: %v: %s", err, stderr)
	}
	var res Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("duckdb output: %v: %s", err, out)
	}
	return res
}

// Types maps each column of f to its DuckDB type, without the Hive
// partition column dt.
func (f File) Types() map[string]string {
	out := map[string]string{}
	for _, c := range f.Columns {
		if c.Name != "dt" {
			out[c.Name] = c.Type
		}
	}
	return out
}
