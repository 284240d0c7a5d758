package audience

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/adsync/adsync/hashing"
	"github.com/jackc/pgx/v5/pgxpool"
)

// source is where an upload's users come from: a CSV or NDJSON file,
// Parquet files, or a query. Each opens as a hashing.RecordReader (rows of
// identifier columns), so every source is planned alike: the same
// normalization, bounds, report, resume and skip rules. A new source is one
// more implementation of this, not a new way through planning.
type source interface {
	// name names the source in messages: its path, or "query".
	name() string
	// recorded is how the upload's record names the source
	// (audience_uploads.file_path): the path, or the query and the server
	// it runs on, never a password.
	recorded() string
	// checksum says "the same input" before anything is read: the SHA-256
	// of a file's bytes. It is "" for a source that only its users
	// identify (a query: see hashing.UsersDigest).
	checksum(ctx context.Context) (string, error)
	// open starts reading the rows; finish ends the reading, saying for a
	// file whether it still is the file checksummed, and releases it.
	open(ctx context.Context) (rows hashing.RecordReader, finish func() error, err error)
	// check says whether users can be read from the source, reading none:
	// see CheckSource.
	check(ctx context.Context) error
}

// newSource is the source o names: o.Query, else the file(s) at o.Path.
func newSource(pool *pgxpool.Pool, o *PlanOptions) (source, error) {
	if o.Query != "" {
		return newQuerySource(pool, o)
	}
	files, err := hashing.ParquetFiles(o.Path)
	if err != nil {
		return nil, err
	}
	if files != nil {
		return &parquetSource{path: o.Path, files: files, opts: o.Reader}, nil
	}
	return &fileSource{path: o.Path, opts: o.Reader}, nil
}

// CheckSource says whether users can be read from o's source (o.Query, or
// o.Path) without reading, sending or recording any: the file exists and
// its header or schema has an identifier column and no column naming
// another thing (unless o.Reader.IgnoreUnknown); the query only reads,
// parses, and its result columns each name an identifier type and hold
// strings, integers or UUIDs. A query is described, never run: pool is
// adsync's database, where it runs when o.SourceURL is empty. An unusable
// source is a *hashing.InputError naming the file or the column.
func CheckSource(ctx context.Context, pool *pgxpool.Pool, o PlanOptions) error {
	src, err := newSource(pool, &o)
	if err != nil {
		return err
	}
	return src.check(ctx)
}

// fileSource is a CSV or NDJSON file, gzipped or not.
type fileSource struct {
	path string
	opts hashing.ReaderOptions
	sum  string
}

func (s *fileSource) name() string     { return s.path }
func (s *fileSource) recorded() string { return s.path }

func (s *fileSource) checksum(context.Context) (string, error) {
	sum, err := FileChecksum(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &hashing.InputError{Err: err}
	}
	s.sum = sum
	return sum, err
}

// open reads the file through a SHA-256 of its bytes: a file changed since
// its checksum was taken fails the plan rather than recording the wrong
// file.
func (s *fileSource) open(context.Context) (hashing.RecordReader, func() error, error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.New()
	src, format, err := hashing.Detect(io.TeeReader(f, sum), s.path)
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("%s: %w", s.path, err)
	}
	rr, err := hashing.NewReader(src, format, s.opts)
	if err != nil {
		_ = src.Close()
		return nil, nil, fmt.Errorf("%s: %w", s.path, err)
	}
	finish := func() error {
		defer func() { _ = src.Close() }()
		// Whatever the readers left unread (trailing bytes after gzip's
		// end) still belongs to the checksum.
		if _, err := io.Copy(sum, f); err != nil {
			return fmt.Errorf("%s: %w", s.path, err)
		}
		if got := hex.EncodeToString(sum.Sum(nil)); s.sum != "" && got != s.sum {
			return fmt.Errorf("%s changed while it was read; run again", s.path)
		}
		return nil
	}
	return rr, finish, nil
}

func (s *fileSource) check(context.Context) error {
	_, _, closeFile, err := hashing.OpenPath(s.path, s.opts)
	if err != nil {
		return err
	}
	return closeFile()
}

// parquetSource is Parquet files: one, a folder of them or a glob.
type parquetSource struct {
	path  string // as given
	files []string
	opts  hashing.ReaderOptions
	// stats are the files' sizes and times when checksummed.
	stats []fileStat
	sum   string
}

type fileStat struct {
	size    int64
	modTime time.Time
}

func (s *parquetSource) name() string     { return s.path }
func (s *parquetSource) recorded() string { return s.path }

// checksum is the SHA-256 of the file's bytes for one file; for several,
// the SHA-256 of their list as sha256sum prints it (each file's SHA-256
// and path, in reading order). Parquet is read out of order (footer first,
// then row groups), so a file's bytes cannot be hashed as they are read:
// finish compares each file's size and time with those seen here instead.
func (s *parquetSource) checksum(context.Context) (string, error) {
	s.stats = s.stats[:0]
	list := sha256.New()
	var one string
	for _, f := range s.files {
		st, err := os.Stat(f)
		if err != nil {
			return "", &hashing.InputError{Err: err}
		}
		sum, err := FileChecksum(f)
		if err != nil {
			return "", err
		}
		s.stats = append(s.stats, fileStat{size: st.Size(), modTime: st.ModTime()})
		fmt.Fprintf(list, "%s  %s\n", sum, f)
		one = sum
	}
	s.sum = hex.EncodeToString(list.Sum(nil))
	if len(s.files) == 1 {
		s.sum = one
	}
	return s.sum, nil
}

func (s *parquetSource) open(context.Context) (hashing.RecordReader, func() error, error) {
	r, err := hashing.NewParquetReader(s.files, s.opts)
	if err != nil {
		return nil, nil, err
	}
	finish := func() error {
		_ = r.Close()
		for i, f := range s.files {
			st, err := os.Stat(f)
			if err != nil || (i < len(s.stats) && (st.Size() != s.stats[i].size || !st.ModTime().Equal(s.stats[i].modTime))) {
				return fmt.Errorf("%s changed while it was read; run again", f)
			}
		}
		return nil
	}
	return r, finish, nil
}

func (s *parquetSource) check(context.Context) error {
	r, err := hashing.NewParquetReader(s.files, s.opts)
	if err != nil {
		return err
	}
	return r.Close()
}

// OpenSource opens o's source (o.Query, else o.Path) as rows of
// identifier columns, planning nothing: what a command that only hashes
// reads. close releases it. pool is adsync's database, where a query runs
// when o.SourceURL is empty. A source no user can be read from is a
// *hashing.InputError.
func OpenSource(ctx context.Context, pool *pgxpool.Pool, o PlanOptions) (rows hashing.RecordReader, close func() error, err error) {
	src, err := newSource(pool, &o)
	if err != nil {
		return nil, nil, err
	}
	return src.open(ctx)
}
