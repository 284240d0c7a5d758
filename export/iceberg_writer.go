package export

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"net/url"
	"time"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
)

// icebergWriter writes one table's rows into Iceberg data files: Parquet
// with the Iceberg schema's field ids, one partition per file (the rows
// arrive ordered by partition), at most rowsPerFile rows each, under the
// table's data/ folder.
type icebergWriter struct {
	fs        icebergio.WriteFileIO
	location  string // the table's location
	run       int64
	schema    *parquet.Schema
	icebergSc string // the Iceberg schema as JSON, in every file's footer
	spec      iceberg.PartitionSpec
	// accountCol and dateCol are the leaf indexes of the partition source
	// columns in a row (-1: the table has none); accountField and
	// monthField are their partition fields' ids.
	accountCol, dateCol      int
	accountField, monthField int
	rowsPerFile, rowsPerRG   int64

	n       int
	cur     *icebergFile
	key     partitionKey
	written []writtenDataFile
}

// partitionKey is one partition's values.
type partitionKey struct {
	account string
	month   int32
}

type icebergFile struct {
	w    icebergio.FileWriter
	buf  *bufio.Writer
	h    hash.Hash
	cw   *countingWriter
	pw   *parquet.GenericWriter[any]
	rows int64
	path string
	key  partitionKey
}

// writtenDataFile is a complete data file and its Iceberg description.
type writtenDataFile struct {
	info FileInfo
	file iceberg.DataFile
	key  partitionKey
}

// newIcebergWriter writes t's rows of run into the Iceberg table whose
// current schema is sc and default spec is spec, at location.
func newIcebergWriter(fs icebergio.WriteFileIO, t Table, location string, sc *iceberg.Schema, spec iceberg.PartitionSpec, run int64, opts Options) (*icebergWriter, error) {
	ps, err := t.icebergParquetSchema(sc)
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	w := &icebergWriter{fs: fs, location: location, run: run, schema: ps, icebergSc: string(js), spec: spec,
		accountCol: -1, dateCol: -1, rowsPerFile: opts.RowsPerFile, rowsPerRG: opts.RowsPerRowGroup}
	account, date := t.partitionColumns()
	for i, c := range t.leafOrder() {
		switch {
		case c.Name == "account_id" && account:
			w.accountCol = i + 1 // the run column is leaf 0
		case c.Name == date:
			w.dateCol = i + 1
		}
	}
	for _, f := range spec.Fields() {
		switch f.Name {
		case "account_id":
			w.accountField = f.FieldID
		case "date_month":
			w.monthField = f.FieldID
		}
	}
	if w.accountField == 0 {
		w.accountCol = -1
	}
	if w.monthField == 0 {
		w.dateCol = -1
	}
	return w, nil
}

// keyOf is the partition of a row.
func (w *icebergWriter) keyOf(row parquet.Row) partitionKey {
	var k partitionKey
	for _, v := range row {
		switch v.Column() {
		case w.accountCol:
			k.account = string(v.ByteArray())
		case w.dateCol:
			k.month = monthOf(v.Int32())
		}
	}
	return k
}

// writeRows writes rows, starting a new file at each partition and
// whenever a file reaches rowsPerFile rows.
func (w *icebergWriter) writeRows(rows []parquet.Row) error {
	for len(rows) > 0 {
		if w.cur != nil && w.accountCol < 0 && w.dateCol < 0 {
			// Unpartitioned: only the size bounds a file.
		} else if w.cur != nil && w.keyOf(rows[0]) != w.cur.key {
			if err := w.closeFile(); err != nil {
				return err
			}
		}
		if w.cur == nil {
			if err := w.open(w.keyOf(rows[0])); err != nil {
				return err
			}
		}
		// The run of rows in this file's partition, up to the file's bound.
		n := 1
		limit := min(int64(len(rows)), w.rowsPerFile-w.cur.rows)
		for int64(n) < limit && (w.accountCol < 0 && w.dateCol < 0 || w.keyOf(rows[n]) == w.cur.key) {
			n++
		}
		if _, err := w.cur.pw.WriteRows(rows[:n]); err != nil {
			return fmt.Errorf("writing rows: %w", err)
		}
		w.cur.rows += int64(n)
		rows = rows[n:]
		if w.cur.rows >= w.rowsPerFile {
			if err := w.closeFile(); err != nil {
				return err
			}
		}
	}
	return nil
}

// partitionPath is the Hive-style folder of a partition under data/.
func (w *icebergWriter) partitionPath(k partitionKey) string {
	p := ""
	if w.accountCol >= 0 {
		p += "account_id=" + url.PathEscape(k.account) + "/"
	}
	if w.dateCol >= 0 {
		p += "date_month=" + time.Date(1970, time.Month(1+k.month), 1, 0, 0, 0, 0, time.UTC).Format("2006-01") + "/"
	}
	return p
}

func (w *icebergWriter) open(k partitionKey) error {
	w.n++
	path := fmt.Sprintf("%s/data/%s%d-%d-%s.parquet", w.location, w.partitionPath(k), w.run, w.n, uuid.NewString()[:8])
	f, err := w.fs.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	h := sha256.New()
	cw := &countingWriter{w: multiWriter{f, h}}
	buf := bufio.NewWriterSize(cw, 1<<20)
	pw := parquet.NewGenericWriter[any](buf, w.schema,
		parquet.Compression(zstdCodec),
		parquet.MaxRowsPerRowGroup(w.rowsPerRG),
		parquet.CreatedBy("adsync", "", ""),
		parquet.KeyValueMetadata("iceberg.schema", w.icebergSc),
	)
	w.cur = &icebergFile{w: f, buf: buf, h: h, cw: cw, pw: pw, path: path, key: k}
	return nil
}

// multiWriter writes to a file and a hash (the file's errors only).
type multiWriter struct {
	f icebergio.FileWriter
	h hash.Hash
}

func (m multiWriter) Write(p []byte) (int, error) {
	n, err := m.f.Write(p)
	m.h.Write(p[:n])
	return n, err
}

// closeFile finishes the open file and describes it for the commit.
func (w *icebergWriter) closeFile() error {
	c := w.cur
	if c == nil {
		return nil
	}
	w.cur = nil
	err := c.pw.Close()
	if err == nil {
		err = c.buf.Flush()
	}
	if cerr := c.w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("finishing %s: %w", c.path, err)
	}
	part := map[int]any{}
	if w.accountCol >= 0 {
		part[w.accountField] = c.key.account
	}
	if w.dateCol >= 0 {
		part[w.monthField] = c.key.month
	}
	b, err := iceberg.NewDataFileBuilder(w.spec, iceberg.EntryContentData, c.path, iceberg.ParquetFile, part, nil, nil, c.rows, c.cw.n)
	if err != nil {
		return fmt.Errorf("describing %s: %w", c.path, err)
	}
	w.written = append(w.written, writtenDataFile{file: b.Build(), key: c.key,
		info: FileInfo{Path: c.path, Rows: c.rows, Bytes: c.cw.n, SHA256: hex.EncodeToString(c.h.Sum(nil))}})
	return nil
}

// abort closes the open file, if any: it stays in the journal, unreferenced,
// and the run's collection removes it.
func (w *icebergWriter) abort() {
	if w.cur != nil {
		_ = w.cur.w.Close()
		w.cur = nil
	}
}
