package export

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

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

	// spent is the time each column took so far, order the columns by it.
	spent []time.Duration
	order []int
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
	// rgRows is the rows of the row group not yet written to the file;
	// flushed says its columns hold no value not yet encoded in a page.
	rgRows  int64
	flushed bool
	rel     string
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

// rowsPerWrite is how many rows of a column are handed to its writer at
// once: parquet-go's own WriteRows writes 64 rows at a time, so that a page
// ends near its target size, and the files stay the same as its.
const rowsPerWrite = 64

// writeBatch writes bt's rows, cutting a row group at rowsPerRG rows and
// starting a new file whenever one reaches rowsPerFile. The columns of a
// row group are independent until it is written out, so each column's
// values are encoded and compressed on whichever core is free (the costly
// columns first); only writing the finished row group into the file is
// serial. The files are the ones parquet-go's WriteRows makes of the same
// rows, byte for byte.
func (pw *partWriter) writeBatch(bt *rowBatch) error {
	for row := 0; row < bt.rows; {
		if pw.cur == nil {
			if err := pw.open(); err != nil {
				return err
			}
		}
		c := pw.cur
		n := min(int64(bt.rows-row), pw.rowsPerFile-c.rows, pw.rowsPerRG-c.rgRows)
		from, to := row, row+int(n)
		// The last rows of a row group: each column's last page is encoded
		// and compressed with the rest (flushed), not in the serial part.
		last := c.rgRows+n == pw.rowsPerRG || c.rows+n == pw.rowsPerFile
		err := pw.eachColumn(c, func(col int, w *parquet.ColumnWriter) error {
			for s := from; s < to; s += rowsPerWrite {
				if _, err := w.WriteRowValues(bt.values(col, s, min(s+rowsPerWrite, to))); err != nil {
					return err
				}
			}
			if last {
				return w.Flush()
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("export %s: writing rows: %w", pw.table.Name, err)
		}
		c.rows += n
		c.rgRows += n
		c.flushed = last
		row = to
		if c.rows >= pw.rowsPerFile {
			if err := pw.closeFile(); err != nil {
				return err
			}
		} else if c.rgRows >= pw.rowsPerRG {
			if err := c.w.Flush(); err != nil {
				return fmt.Errorf("export %s: writing rows: %w", pw.table.Name, err)
			}
			c.rgRows = 0
		}
	}
	return nil
}

// eachColumn calls f for every column writer of c's row group, on up to GOMAXPROCS goroutines (this one among them), the
// columns that took longest so far first, so that the longest is not left
// for last. f is never called for one column on two goroutines at once.
func (pw *partWriter) eachColumn(c *openFile, f func(col int, w *parquet.ColumnWriter) error) error {
	ws := c.w.ColumnWriters()
	if len(pw.spent) != len(ws) {
		pw.spent = make([]time.Duration, len(ws))
		pw.order = make([]int, len(ws))
		for i := range pw.order {
			pw.order[i] = i
		}
	}
	slices.SortStableFunc(pw.order, func(a, b int) int { return cmp.Compare(pw.spent[b], pw.spent[a]) })
	var next atomic.Int32
	var failed atomic.Pointer[error]
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= len(pw.order) || failed.Load() != nil {
				return
			}
			col := pw.order[i]
			start := time.Now()
			if err := f(col, ws[col]); err != nil {
				failed.CompareAndSwap(nil, &err)
				return
			}
			pw.spent[col] += time.Since(start) // this goroutine alone has col
		}
	}
	helpers := min(runtime.GOMAXPROCS(0), len(ws)) - 1
	var wg sync.WaitGroup
	wg.Add(helpers)
	for range helpers {
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	if err := failed.Load(); err != nil {
		return *err
	}
	return nil
}

func (pw *partWriter) open() error {
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
		parquet.Compression(&zstdCodec),
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
	var err error
	if c.rgRows > 0 && !c.flushed {
		// The last row group's last pages, as writeBatch does.
		err = pw.eachColumn(c, func(_ int, w *parquet.ColumnWriter) error { return w.Flush() })
	}
	if err == nil {
		err = c.w.Close()
	}
	if err == nil {
		err = c.buf.Flush()
	}
	if err == nil {
		err = c.sink.complete()
	}
	if err != nil {
		c.sink.abort()
		return fmt.Errorf("export %s: finishing %s: %w", pw.table.Name, c.rel, err)
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
