package hashing

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FormatParquet is Parquet: a file, a folder of files or a glob, read by
// ParquetReader.
const FormatParquet Format = "parquet"

var parquetMagic = []byte("PAR1")

// ParquetFiles returns the Parquet files path names, in the order they are
// read, or nil when path is one file that is not Parquet (CSV or NDJSON):
//
//   - a glob (with *, ? or [): the files it matches, sorted; each must be
//     Parquet;
//   - a folder: every .parquet file under it, sorted by path, leaving out
//     hidden files and folders and those starting with _ (_SUCCESS,
//     _temporary: what writers leave beside their output);
//   - a file: itself when its name ends in .parquet or it starts with
//     Parquet's magic bytes.
//
// A path that names nothing, an empty folder or glob, and a glob matching
// another kind of file are *InputErrors.
func ParquetFiles(path string) ([]string, error) {
	if strings.ContainsAny(path, "*?[") {
		if _, err := os.Stat(path); err != nil {
			return parquetGlob(path)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	if st.IsDir() {
		return parquetFolder(path)
	}
	ok, err := isParquet(path)
	if err != nil || !ok {
		return nil, err
	}
	return []string{path}, nil
}

func parquetGlob(pattern string) ([]string, error) {
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, InputErrorf("%s: %w", pattern, err)
	}
	var out []string
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			continue
		}
		ok, err := isParquet(f)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, InputErrorf("%s matches %s, which is not a Parquet file: a glob reads Parquet files only", pattern, f)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, InputErrorf("%s matches no file", pattern)
	}
	slices.Sort(out)
	return out, nil
}

func parquetFolder(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != dir && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(name), ".parquet") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, InputErrorf("%s: the folder holds no .parquet file", dir)
	}
	slices.Sort(out)
	return out, nil
}

// isParquet reports whether the file at path is Parquet: by its name, else
// by its first bytes.
func isParquet(path string) (bool, error) {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return true, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, &InputError{Err: err}
	}
	defer func() { _ = f.Close() }()
	head := make([]byte, len(parquetMagic))
	if _, err := io.ReadFull(f, head); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return false, nil
		}
		return false, err
	}
	return bytes.Equal(head, parquetMagic), nil
}

// OpenPath opens path, in any format adsync reads (CSV, NDJSON, either
// gzipped, Parquet files), as a RecordReader; close releases it. Errors
// name the path. A path
// that cannot be read as an input at all (see ParquetFiles, NewCSVReader,
// NewParquetReader) is an *InputError.
func OpenPath(path string, opts ReaderOptions) (r RecordReader, format Format, close func() error, err error) {
	files, err := ParquetFiles(path)
	if err != nil {
		return nil, "", nil, err
	}
	if files != nil {
		pr, err := NewParquetReader(files, opts)
		if err != nil {
			return nil, "", nil, err
		}
		return pr, FormatParquet, pr.Close, nil
	}
	src, format, err := Open(path)
	if err != nil {
		return nil, "", nil, err
	}
	rr, err := NewReader(src, format, opts)
	if err != nil {
		_ = src.Close()
		return nil, "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return rr, format, src.Close, nil
}
