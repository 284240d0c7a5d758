package export

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"runtime"

	"github.com/parquet-go/parquet-go"
)

// FileInfo describes one written file.
type FileInfo struct {
	Path   string `json:"path"` // relative to the output directory
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// partWriter writes one table's rows of a run into numbered files,
// created through the output (invisible to readers until the run
// publishes them) at <rel>/part-<run>-<n>.parquet under the output's root.
type partWriter struct {
	ctx         context.Context
	out         output
	rel         string // the partition directory, slash-separated
	run         int64
	table       Table
	schema      *parquet.Schema
	rowsPerFile int64
	rowsPerRG   int64

	n       int
	cur     *openFile
	written []pendingFile
}

// newPartWriter writes table t's rows of run into the output, under
// <table>/<partition>/.
func newPartWriter(ctx context.Context, out output, t Table, run int64, partition string, opts Options) *partWriter {
	return &partWriter{ctx: ctx, out: out, rel: t.Name + "/" + partition, run: run,
		table: t, schema: t.Schema(), rowsPerFile: opts.RowsPerFile, rowsPerRG: opts.RowsPerRowGroup}
}

type openFile struct {
	sink fileSink
	buf  *bufio.Writer
	h    hash.Hash
	cw   *countingWriter
	w    *parquet.GenericWriter[any]
	rows int64
	rel  string
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
// rowsPerFile. Its errors do not name the table: Run does, once.
func (pw *partWriter) writeRows(rows []parquet.Row) error {
	for len(rows) > 0 {
		if pw.cur == nil {
			if err := pw.open(); err != nil {
				return err
			}
		}
		n := min(int64(len(rows)), pw.rowsPerFile-pw.cur.rows)
		if _, err := pw.cur.w.WriteRows(rows[:n]); err != nil {
			return fmt.Errorf("writing rows: %w", err)
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
	if pw.n > 0 {
		// Everything the last file's writer held (its row group's columns
		// and pages, its encoders' state) is garbage now: collected before
		// the next file's writer fills the heap again. Otherwise the heap
		// grows file after file toward the collector's goal (twice the live
		// heap), and a table of many files peaks higher than a table of one.
		runtime.GC()
	}
	pw.n++
	rel := path.Join(pw.rel, fmt.Sprintf("part-%d-%d.parquet", pw.run, pw.n))
	sink, err := pw.out.create(pw.ctx, pw.run, rel)
	if err != nil {
		return err
	}
	h := sha256.New()
	cw := &countingWriter{w: io.MultiWriter(sink, h)}
	buf := bufio.NewWriterSize(cw, 1<<20)
	w := parquet.NewGenericWriter[any](buf, pw.schema,
		parquet.Compression(zstdCodec),
		parquet.MaxRowsPerRowGroup(pw.rowsPerRG), // bounds memory: a row group is buffered whole
		parquet.CreatedBy("adsync", "", ""),
		parquet.KeyValueMetadata("adsync.table", pw.table.Name),
		parquet.KeyValueMetadata("adsync.schema_fingerprint", pw.table.Fingerprint()),
	)
	pw.cur = &openFile{sink: sink, buf: buf, h: h, cw: cw, w: w, rel: rel}
	return nil
}

// closeFile finishes the open file (durable, still invisible to readers).
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
		err = c.sink.complete()
	}
	if err != nil {
		c.sink.abort()
		return fmt.Errorf("finishing %s: %w", c.rel, err)
	}
	pw.written = append(pw.written, pendingFile{rel: c.rel, sink: c.sink,
		info: FileInfo{Path: c.rel, Rows: c.rows, Bytes: c.cw.n, SHA256: hex.EncodeToString(c.h.Sum(nil))}})
	return nil
}

// abort drops every file of this writer not yet published.
func (pw *partWriter) abort() {
	if pw.cur != nil {
		pw.cur.sink.abort()
		pw.cur = nil
	}
	for _, p := range pw.written {
		p.sink.abort()
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
