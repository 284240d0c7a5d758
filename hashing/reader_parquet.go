package hashing

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// parquetBatchRows is how many rows of each identifier column are decoded
// at once: enough that a batch costs nothing per row, few enough that a
// batch's values stay well under a megabyte.
const parquetBatchRows = 4096

// ParquetReader reads records from Parquet files, one per row, their
// identifier columns named like a CSV header's (aliases, any case, a
// numeric suffix for more columns of a type). A column holds strings (or
// enums) or integers; a null is an empty value. Files are read one row
// group at a time and only their identifier columns, page by page, so
// memory stays a few batches of values whatever the files' size. Rows are
// numbered from 1 across the files, in order (see RowNames).
type ParquetReader struct {
	files []parquetFile
	names *RowNames
	max   int // longest value accepted, in bytes

	fi   int // the open file, or -1
	f    *os.File
	pf   *parquet.File
	rg   int   // next row group of the open file
	left int64 // rows of the open row group not decoded yet
	cols []parquetCursor

	// The decoded batch: each column's values (views into arena) and each
	// row's reason to be rejected, if any.
	n, pos  int
	reasons []string
	arena   []byte
	vals    []parquet.Value
	row     int // number of the last row returned
	rec     Record
}

// parquetFile is one file of a ParquetReader, as checked when it was
// opened: its rows and its identifier columns.
type parquetFile struct {
	path string
	rows int64
	cols []parquetColumn
}

// parquetColumn is an identifier column of a file.
type parquetColumn struct {
	name  string
	leaf  int // the column's index among the file's leaf columns
	typ   Type
	value parquetValue
}

// parquetValue is how a column's values become text.
type parquetValue int

const (
	parquetString parquetValue = iota
	parquetInt
	parquetUint
	parquetUUID
)

// parquetCursor reads one identifier column of the open row group.
type parquetCursor struct {
	col    *parquetColumn
	values parquet.ColumnChunkValueReader
	got    []string // this batch's values
}

// NewParquetReader checks every file's schema (its footer only) and returns
// a reader of their rows, in the order given. It fails with an
// *InputError naming the file and the column for a file with a column
// naming no identifier type (unless opts.IgnoreUnknown), without any
// identifier column, or with an identifier column that is neither strings
// nor integers (a list, a struct, a float, a date...).
func NewParquetReader(paths []string, opts ReaderOptions) (*ParquetReader, error) {
	if len(paths) == 0 {
		return nil, InputErrorf("no Parquet file to read")
	}
	r := &ParquetReader{fi: -1, max: opts.MaxLineBytes, rec: Record{Values: map[Type][]string{}}}
	if r.max <= 0 {
		r.max = DefaultMaxLineBytes
	}
	rows := make([]int64, 0, len(paths))
	for _, p := range paths {
		pf, err := checkParquetFile(p, opts)
		if err != nil {
			return nil, err
		}
		r.files = append(r.files, pf)
		rows = append(rows, pf.rows)
	}
	r.names = NewRowNames(paths, rows)
	return r, nil
}

// checkParquetFile reads the footer of the file at path and maps its
// columns.
func checkParquetFile(path string, opts ReaderOptions) (parquetFile, error) {
	out := parquetFile{path: path}
	f, pf, err := openParquet(path)
	if err != nil {
		return out, err
	}
	defer func() { _ = f.Close() }()
	out.rows = pf.NumRows()
	fields := pf.Root().Columns()
	names := make([]string, len(fields))
	for i, c := range fields {
		names[i] = c.Name()
	}
	types, err := ColumnTypes(names, opts)
	if err != nil {
		return out, &InputError{Err: fmt.Errorf("%s: %w", path, err)}
	}
	for i, c := range fields {
		if types[i] == "" {
			continue
		}
		value, err := parquetValueOf(c)
		if err != nil {
			return out, InputErrorf("%s: column %q %v: want a string or integer column", path, c.Name(), err)
		}
		out.cols = append(out.cols, parquetColumn{name: c.Name(), leaf: c.Index(), typ: types[i], value: value})
	}
	return out, nil
}

// openParquet opens a Parquet file, reading its footer only.
func openParquet(path string) (*os.File, *parquet.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &InputError{Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		_ = f.Close()
		return nil, nil, InputErrorf("%s: not a readable Parquet file: %w", path, err)
	}
	return f, pf, nil
}

// parquetValueOf says how the values of column c become text, or why they
// cannot: only top-level columns of strings, enums, UUIDs or integers hold
// identifiers.
func parquetValueOf(c *parquet.Column) (parquetValue, error) {
	if !c.Leaf() || c.Repeated() {
		return 0, errors.New("is a list or a nested column")
	}
	t := c.Type()
	var logical format.LogicalTypeValue
	if lt := t.LogicalType(); lt != nil {
		logical = lt.Value
	}
	var converted *deprecated.ConvertedType
	if logical == nil {
		converted = t.ConvertedType()
	}
	refused := fmt.Errorf("is %s", t)
	switch t.Kind() {
	case parquet.ByteArray:
		switch logical.(type) {
		case nil:
			if converted == nil || *converted == deprecated.UTF8 || *converted == deprecated.Enum {
				return parquetString, nil
			}
		case *format.StringType, *format.EnumType:
			return parquetString, nil
		}
	case parquet.FixedLenByteArray:
		if _, ok := logical.(*format.UUIDType); ok {
			return parquetUUID, nil
		}
	case parquet.Int32, parquet.Int64:
		switch lt := logical.(type) {
		case nil:
			if converted == nil {
				return parquetInt, nil
			}
			switch *converted {
			case deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64:
				return parquetInt, nil
			case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
				return parquetUint, nil
			}
		case *format.IntType:
			if lt.IsSigned {
				return parquetInt, nil
			}
			return parquetUint, nil
		}
	}
	return 0, refused
}

// RowNames names the rows: numbered from 1 across the files, in order.
func (r *ParquetReader) RowNames() *RowNames { return r.names }

// Next returns the next row; see RecordReader.
func (r *ParquetReader) Next() (Record, error) {
	if r.pos == r.n {
		if err := r.fill(); err != nil {
			return Record{}, err
		}
	}
	i := r.pos
	r.pos++
	r.row++
	if reason := r.reasons[i]; reason != "" {
		return Record{}, &RowError{Line: r.row, Reason: reason}
	}
	resetValues(r.rec.Values)
	r.rec.Line = r.row
	for c := range r.cols {
		if v := r.cols[c].got[i]; v != "" {
			t := r.cols[c].col.typ
			r.rec.Values[t] = append(r.rec.Values[t], v)
		}
	}
	return r.rec, nil
}

// fill decodes the next batch of rows, moving to the next row group or
// file as needed; io.EOF after the last row of the last file.
func (r *ParquetReader) fill() error {
	for r.left == 0 {
		if err := r.nextRowGroup(); err != nil {
			return err
		}
	}
	n := int(min(r.left, parquetBatchRows))
	r.left -= int64(n)
	r.n, r.pos = n, 0
	r.reasons = r.reasons[:0]
	for range n {
		r.reasons = append(r.reasons, "")
	}
	// A new arena per batch: the values handed out as strings view it, and
	// a batch's rows may still be hashed while the next one is decoded.
	r.arena = make([]byte, 0, max(64<<10, 2*cap(r.arena)/3))
	if len(r.vals) == 0 {
		r.vals = make([]parquet.Value, parquetBatchRows)
	}
	for c := range r.cols {
		if err := r.decode(&r.cols[c], n); err != nil {
			return err
		}
	}
	return nil
}

// nextRowGroup opens the next row group (and the next file when the open
// one has no more).
func (r *ParquetReader) nextRowGroup() error {
	if r.pf != nil && r.rg < len(r.pf.RowGroups()) {
		rg := r.pf.RowGroups()[r.rg]
		r.rg++
		r.closeCursors()
		chunks := rg.ColumnChunks()
		file := &r.files[r.fi]
		r.cols = r.cols[:0]
		for i := range file.cols {
			r.cols = append(r.cols, parquetCursor{col: &file.cols[i], values: parquet.NewColumnChunkValueReader(chunks[file.cols[i].leaf])})
		}
		r.left = rg.NumRows()
		return nil
	}
	r.closeFile()
	if r.fi+1 >= len(r.files) {
		return io.EOF
	}
	r.fi++
	f, pf, err := openParquet(r.files[r.fi].path)
	if err != nil {
		return err
	}
	if pf.NumRows() != r.files[r.fi].rows {
		_ = f.Close()
		return fmt.Errorf("%schanged while it was read; run again", r.inFile())
	}
	r.f, r.pf, r.rg = f, pf, 0
	return nil
}

// inFile names the open file in a reading error when the reader has
// several ("PATH: "), and is "" for one: whoever reads the rows names the
// source (its path, folder or glob), as for a CSV file's, so the one file
// of a source is not named twice.
func (r *ParquetReader) inFile() string {
	if len(r.files) == 1 {
		return ""
	}
	return r.files[r.fi].path + ": "
}

// decode reads the next n values of column c into c.got, copying them into
// the arena: a page's memory is reused once the next page is read.
func (r *ParquetReader) decode(c *parquetCursor, n int) error {
	c.got = c.got[:0]
	for len(c.got) < n {
		k, err := c.values.ReadValues(r.vals[:n-len(c.got)])
		for _, v := range r.vals[:k] {
			c.got = append(c.got, r.text(c.col, v, len(c.got)))
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%scolumn %q: %w", r.inFile(), c.col.name, err)
		}
		if k == 0 && err == io.EOF {
			return fmt.Errorf("%scolumn %q holds fewer values than the file has rows", r.inFile(), c.col.name)
		}
	}
	return nil
}

// text copies value v of column c, for row i of the batch, into the arena
// and returns it as a string ("" for a null); a value that cannot be an
// identifier marks its row rejected.
func (r *ParquetReader) text(c *parquetColumn, v parquet.Value, i int) string {
	if v.IsNull() {
		return ""
	}
	from := len(r.arena)
	switch c.value {
	case parquetString:
		b := v.ByteArray()
		switch {
		case len(b) > r.max:
			r.reject(i, fmt.Sprintf("column %q: value longer than %d bytes", c.name, r.max))
			return ""
		case !utf8.Valid(b):
			r.reject(i, fmt.Sprintf("column %q: invalid UTF-8 at byte %d", c.name, invalidUTF8At(b)+1))
			return ""
		}
		r.arena = append(r.arena, b...)
	case parquetInt:
		if v.Kind() == parquet.Int32 {
			r.arena = strconv.AppendInt(r.arena, int64(v.Int32()), 10)
		} else {
			r.arena = strconv.AppendInt(r.arena, v.Int64(), 10)
		}
	case parquetUint:
		if v.Kind() == parquet.Int32 {
			r.arena = strconv.AppendUint(r.arena, uint64(v.Uint32()), 10)
		} else {
			r.arena = strconv.AppendUint(r.arena, v.Uint64(), 10)
		}
	case parquetUUID:
		r.arena = appendUUID(r.arena, v.ByteArray())
	}
	b := r.arena[from:]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// reject marks row i of the batch rejected, keeping its first reason.
func (r *ParquetReader) reject(i int, reason string) {
	if r.reasons[i] == "" {
		r.reasons[i] = reason
	}
}

// appendUUID appends the 16 bytes of a UUID in its canonical text form.
func appendUUID(dst, u []byte) []byte {
	if len(u) != 16 {
		return hex.AppendEncode(dst, u)
	}
	dst = hex.AppendEncode(dst, u[0:4])
	for _, part := range [][]byte{u[4:6], u[6:8], u[8:10], u[10:16]} {
		dst = hex.AppendEncode(append(dst, '-'), part)
	}
	return dst
}

func (r *ParquetReader) closeCursors() {
	for _, c := range r.cols {
		_ = c.values.Close()
	}
	r.cols = r.cols[:0]
}

func (r *ParquetReader) closeFile() {
	r.closeCursors()
	if r.f != nil {
		_ = r.f.Close()
	}
	r.f, r.pf = nil, nil
}

// Close closes the open file and drops the buffers.
func (r *ParquetReader) Close() error {
	r.closeFile()
	r.fi = len(r.files)
	r.arena, r.vals, r.reasons, r.cols = nil, nil, nil, nil
	r.n, r.pos = 0, 0
	return nil
}
