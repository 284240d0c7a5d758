package export

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

// FileInfo describes one written file.
type FileInfo struct {
	Path   string `json:"path"` // relative to the output directory
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// partWriter writes one table's rows of a run into numbered files in the
// run's staging area, from where commit moves them to the same relative
// path under the output root.
type partWriter struct {
	out, stage  string // output root and the run's staging area
	rel         string // the partition directory, relative to either
	run         int64
	table       Table
	schema      *parquet.Schema
	rowsPerFile int64
	rowsPerRG   int64

	n       int
	cur     *openFile
	written []pendingFile
}

type openFile struct {
	f    *os.File
	buf  *bufio.Writer
	h    hash.Hash
	cw   *countingWriter
	w    *parquet.GenericWriter[any]
	rows int64
	tmp  string
	dst  string
}

// pendingFile is a complete file waiting for commit.
type pendingFile struct {
	tmp, dst string
	info     FileInfo
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeRows writes rows, starting a new file whenever one reaches
// rowsPerFile.
func (pw *partWriter) writeRows(rows []parquet.Row) error {
	for len(rows) > 0 {
		if pw.cur == nil {
			if err := pw.open(); err != nil {
				return err
			}
		}
		n := min(int64(len(rows)), pw.rowsPerFile-pw.cur.rows)
		if _, err := pw.cur.w.WriteRows(rows[:n]); err != nil {
			return fmt.Errorf("export %s: writing rows: %w", pw.table.Name, err)
		}
		pw.cur.rows += n
		rows = rows[n:]
		if pw.cur.rows >= pw.rowsPerFile {
			if err := pw.closeFile(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (pw *partWriter) open() error {
	dir := filepath.Join(pw.stage, pw.rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pw.n++
	name := fmt.Sprintf("part-%d-%d.parquet", pw.run, pw.n)
	tmp := filepath.Join(dir, name)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	h := sha256.New()
	cw := &countingWriter{w: io.MultiWriter(f, h)}
	buf := bufio.NewWriterSize(cw, 1<<20)
	w := parquet.NewGenericWriter[any](buf, pw.schema,
		parquet.Compression(&zstdCodec),
		parquet.MaxRowsPerRowGroup(pw.rowsPerRG), // bounds memory: a row group is buffered whole
		parquet.CreatedBy("adsync", "", ""),
		parquet.KeyValueMetadata("adsync.table", pw.table.Name),
		parquet.KeyValueMetadata("adsync.schema_fingerprint", pw.table.Fingerprint()),
	)
	pw.cur = &openFile{f: f, buf: buf, h: h, cw: cw, w: w, tmp: tmp, dst: filepath.Join(pw.out, pw.rel, name)}
	return nil
}

// closeFile finishes the open file (fsynced, still under its temporary name).
func (pw *partWriter) closeFile() error {
	c := pw.cur
	if c == nil {
		return nil
	}
	pw.cur = nil
	err := c.w.Close()
	if err == nil {
		err = c.buf.Flush()
	}
	if err == nil {
		err = c.f.Sync()
	}
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(c.tmp)
		return fmt.Errorf("export %s: finishing %s: %w", pw.table.Name, c.dst, err)
	}
	rel, _ := filepath.Rel(pw.out, c.dst)
	pw.written = append(pw.written, pendingFile{tmp: c.tmp, dst: c.dst,
		info: FileInfo{Path: filepath.ToSlash(rel), Rows: c.rows, Bytes: c.cw.n, SHA256: hex.EncodeToString(c.h.Sum(nil))}})
	return nil
}

// abort removes every staged file of this writer.
func (pw *partWriter) abort() {
	if pw.cur != nil {
		_ = pw.cur.f.Close()
		_ = os.Remove(pw.cur.tmp)
		pw.cur = nil
	}
	for _, p := range pw.written {
		_ = os.Remove(p.tmp)
	}
}

// fileSHA256 is the SHA-256 (hex) and size of the file at path.
func fileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
