package export

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/io/gocloud/blobfs"
	"github.com/jackc/pgx/v5/pgxpool"
	"gocloud.dev/blob"
)

// icebergIO is the file system an Iceberg export writes through: a local
// folder or the output's bucket (the Parquet export's own S3 client). Every
// file is recorded in export_iceberg_files before it is created, with the
// output and run that write it, so that what an interrupted run or an
// expired snapshot leaves behind is removed, and only that: adsync never
// removes a file it did not record.
type icebergIO struct {
	inner    icebergio.WriteFileIO
	pool     *pgxpool.Pool
	ctx      context.Context
	outputID string
	run      int64
}

var (
	_ icebergio.WriteFileIO = (*icebergIO)(nil)
	_ icebergio.ReadFileIO  = (*icebergIO)(nil)
)

// newIcebergIO writes files of run into a local folder (bucket nil) or into
// bucket (an s3:// location's).
func newIcebergIO(ctx context.Context, pool *pgxpool.Pool, outputID string, run int64, bucket *blob.Bucket, bucketName string) *icebergIO {
	var inner icebergio.WriteFileIO = icebergio.LocalFS{}
	if bucket != nil {
		inner = blobfs.New(ctx, bucket, blobfs.DefaultObjectLocationExtractor(bucketName, "s3", "s3a"))
	}
	return &icebergIO{inner: inner, pool: pool, ctx: ctx, outputID: outputID, run: run}
}

// record journals path before it is written.
func (f *icebergIO) record(path string) error {
	_, err := f.pool.Exec(f.ctx, `INSERT INTO export_iceberg_files (path, output_id, run_id) VALUES ($1, $2, $3)
		ON CONFLICT (path) DO UPDATE SET run_id = EXCLUDED.run_id WHERE export_iceberg_files.output_id = EXCLUDED.output_id`,
		path, f.outputID, f.run)
	if err != nil {
		return fmt.Errorf("recording %s: %w", path, err)
	}
	return nil
}

// Create records name and creates it.
func (f *icebergIO) Create(name string) (icebergio.FileWriter, error) {
	if err := f.record(name); err != nil {
		return nil, err
	}
	return f.inner.Create(name)
}

// WriteFile records name and writes p to it.
func (f *icebergIO) WriteFile(name string, p []byte) error {
	if err := f.record(name); err != nil {
		return err
	}
	return f.inner.WriteFile(name, p)
}

// Open opens name for reading.
func (f *icebergIO) Open(name string) (icebergio.File, error) { return f.inner.Open(name) }

// ReadFile reads name whole.
func (f *icebergIO) ReadFile(name string) ([]byte, error) {
	if r, ok := f.inner.(icebergio.ReadFileIO); ok {
		return r.ReadFile(name)
	}
	return nil, errors.ErrUnsupported
}

// Remove refuses: adsync removes files only through its own collection
// (icebergGC), which checks the journal first. iceberg-go asks to remove
// the metadata file of a commit the catalog refused; that file is in the
// journal and unreferenced, so the next collection removes it.
func (f *icebergIO) Remove(name string) error {
	return fmt.Errorf("export: %s is left for adsync's own collection", name)
}

// ioKey carries an export's icebergIO in the contexts iceberg-go hands to
// the file systems it opens by a location's scheme.
type ioKey struct{}

// registerIcebergIO makes iceberg-go open file:// and s3:// locations
// through the export's icebergIO when the context carries one (the
// catalog's metadata writes included); iceberg-go looks file systems up by
// scheme in one process-wide registry, which is the only way to give its
// catalog a file system.
var registerIcebergIO = sync.OnceFunc(func() {
	for _, scheme := range []string{"file", "", "s3", "s3a"} {
		icebergio.Unregister(scheme)
		icebergio.Register(scheme, func(ctx context.Context, u *url.URL, _ map[string]string) (icebergio.IO, error) {
			if f, ok := ctx.Value(ioKey{}).(*icebergIO); ok {
				return f, nil
			}
			if strings.HasPrefix(u.Scheme, "s3") {
				return nil, fmt.Errorf("export: %s: Iceberg tables on S3 are opened only by an export", u.Redacted())
			}
			return icebergio.LocalFS{}, nil
		})
	}
})
