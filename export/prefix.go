package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	gosync "sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// An object-store prefix (s3://BUCKET/PREFIX) follows the folder's
// contract with what S3 offers instead of a rename:
//
//	PREFIX/_adsync_export.json                   the marker, created only if absent
//	PREFIX/_manifests/run-N.json                 one per committed run
//	PREFIX/<table>/dt=YYYY-MM-DD/part-N-K.parquet
//
// Each file of a run is a multipart upload whose parts are sent as the
// file is written (memory holds a few parts, however large the table); no
// upload is completed, so no object is visible to a reader listing the
// prefix, until every file of the run is ready. The journal is in
// Postgres (export_uploads): each upload is recorded before it starts, so
// the next run aborts the uploads of a killed run and removes the objects
// it completed before it committed (each only if its metadata names this
// output and that run). Bucket, credentials, region and endpoint come from
// the AWS SDK's standard environment and config chain, plus the URL's
// query parameters such as endpoint, region and use_path_style, read as
// gocloud.dev's s3blob reads them (see openS3Bucket); multipart uploads use
// the same SDK client.
type prefix struct {
	loc        string // where(): s3://BUCKET/PREFIX, no query
	bucketName string
	root       string // key prefix: "" or "a/b/"
	endpoint   string // host:port of the URL's endpoint=, if any
	bucket     *blob.Bucket
	client     *s3.Client
	outputID   string
	pool       *pgxpool.Pool
}

// Metadata keys on every object a run writes: they say which output and
// run wrote it, so recovery removes only what that run completed.
const (
	metaOutput = "adsync-output"
	metaRun    = "adsync-run"
)

// partSize is the size of each uploaded part but the last (S3's minimum
// is 5 MiB); partsInFlight parts upload while the next one fills.
const (
	partSize      = 8 << 20
	partsInFlight = 2
)

// openPrefix opens the bucket of loc (an s3:// URL ParseOutput accepted)
// without claiming anything.
func openPrefix(ctx context.Context, loc string) (*prefix, error) {
	u, err := url.Parse(loc)
	if err != nil {
		return nil, err
	}
	root := strings.Trim(u.Path, "/")
	if root != "" {
		root += "/"
	}
	p := &prefix{bucketName: u.Host, root: root, loc: "s3://" + u.Host + "/" + strings.TrimSuffix(root, "/")}
	p.loc = strings.TrimSuffix(p.loc, "/")
	p.endpoint = endpointAddr(u.Query().Get("endpoint"))
	if p.bucket, p.client, err = openS3Bucket(ctx, u.Host, u.Query()); err != nil {
		return nil, fmt.Errorf("export: opening %s: %w", p.loc, err)
	}
	if p.client.Options().Region == "" {
		_ = p.bucket.Close()
		return nil, &OutputError{fmt.Sprintf("export: %s: no region: add region=... to the URL's query (for example &region=us-east-1), or set AWS_REGION or a region in ~/.aws/config", p.loc)}
	}
	return p, nil
}

// claimPrefix opens the prefix at loc and claims it for this database.
func claimPrefix(ctx context.Context, pool *pgxpool.Pool, loc string) (*prefix, error) {
	p, err := openPrefix(ctx, loc)
	if err != nil {
		return nil, err
	}
	m, err := claim(ctx, pool, p)
	if err != nil {
		p.close()
		return nil, err
	}
	p.outputID, p.pool = m.OutputID, pool
	return p, nil
}

func (p *prefix) where() string      { return p.loc }
func (p *prefix) id() string         { return p.outputID }
func (p *prefix) close()             { _ = p.bucket.Close() }
func (p *prefix) markerPath() string { return p.loc + "/" + markerName }

func (p *prefix) readMarker(ctx context.Context) ([]byte, error) {
	b, err := p.bucket.ReadAll(ctx, p.root+markerName)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("%s: %w", p.markerPath(), fs.ErrNotExist)
	}
	return b, p.explain(err)
}

// claimable lists the prefix: an empty prefix may be claimed; one that
// holds any object is not (adsync did not create it).
func (p *prefix) claimable(ctx context.Context) (bool, error) {
	it := p.bucket.List(&blob.ListOptions{Prefix: p.root})
	var others []string
	for len(others) < 4 {
		obj, err := it.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return false, fmt.Errorf("export: listing %s: %w", p.loc, p.explain(err))
		}
		others = append(others, strings.TrimPrefix(obj.Key, p.root))
	}
	if len(others) == 0 {
		return false, nil
	}
	return false, &OwnershipError{Folder: p.loc, Reason: fmt.Sprintf(
		"it holds objects (%s) and no %s marker, so adsync did not create it; export into a new or empty prefix",
		othersShown(others), markerName)}
}

// createMarker writes the marker only if no object has its key (a
// conditional put); when another claim won, its marker stands.
func (p *prefix) createMarker(ctx context.Context, b []byte, _ marker) error {
	if _, err := p.putIfAbsent(ctx, p.root+markerName, b, "application/json"); err != nil {
		return fmt.Errorf("export: writing the marker of %s: %w", p.loc, p.explain(err))
	}
	return nil
}

// putIfAbsent writes body at key unless an object is there (then it
// returns false).
func (p *prefix) putIfAbsent(ctx context.Context, key string, body []byte, contentType string) (bool, error) {
	return p.ifAbsent(ctx, key, func(conditional bool) error {
		return p.bucket.WriteAll(ctx, key, body, &blob.WriterOptions{ContentType: contentType, IfNotExist: conditional})
	})
}

// ifAbsent runs write, which creates the object at key, only if no object
// is there, and says whether it did: conditionally (If-None-Match: *), or,
// on a store that does not implement conditional writes, after checking
// that the key is free.
func (p *prefix) ifAbsent(ctx context.Context, key string, write func(conditional bool) error) (bool, error) {
	err := write(true)
	switch {
	case err == nil:
		return true, nil
	case preconditionFailed(err):
		return false, nil
	case !conditionalUnsupported(err):
		return false, err
	}
	if ok, err := p.bucket.Exists(ctx, key); err != nil || ok {
		return false, err
	}
	return true, write(false)
}

// preconditionFailed says whether a conditional write found the key taken.
func preconditionFailed(err error) bool {
	var api smithy.APIError
	return gcerrors.Code(err) == gcerrors.FailedPrecondition || (errors.As(err, &api) && api.ErrorCode() == "PreconditionFailed")
}

// conditionalUnsupported says whether a store answered a conditional write
// with "not implemented" (some S3-compatible stores do not implement
// If-None-Match).
func conditionalUnsupported(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "NotImplemented" {
		return true
	}
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotImplemented
}

func (p *prefix) manifestKey(run int64) string {
	return p.root + manifestDir + "/" + fmt.Sprintf("run-%d.json", run)
}

func (p *prefix) hasManifest(ctx context.Context, run int64) (bool, error) {
	ok, err := p.bucket.Exists(ctx, p.manifestKey(run))
	return ok, p.explain(err)
}

// writeManifest journals the manifest's key and size as the run's files
// are (so undo removes the manifest of a run that did not commit, by its
// metadata and size), then writes it, never over an existing object.
func (p *prefix) writeManifest(ctx context.Context, res *Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	key := p.manifestKey(res.RunID)
	if _, err := p.pool.Exec(ctx, `INSERT INTO export_uploads (output_id, run_id, key, bytes) VALUES ($1, $2, $3, $4)
		ON CONFLICT (output_id, key) DO UPDATE SET run_id = EXCLUDED.run_id, upload_id = NULL, bytes = EXCLUDED.bytes`,
		p.outputID, res.RunID, key, len(b)); err != nil {
		return fmt.Errorf("recording the manifest's key %s: %w", key, err)
	}
	written, err := p.ifAbsent(ctx, key, func(conditional bool) error {
		return p.bucket.WriteAll(ctx, key, b, &blob.WriterOptions{ContentType: "application/json", IfNotExist: conditional,
			Metadata: map[string]string{metaOutput: p.outputID, metaRun: strconv.FormatInt(res.RunID, 10)}})
	})
	if err != nil {
		return p.explain(err)
	}
	if !written {
		return fmt.Errorf("s3://%s/%s already exists and adsync did not write it in this run; it is left as it is", p.bucketName, key)
	}
	res.Manifest = "s3://" + p.bucketName + "/" + key
	return nil
}

// create records the upload in the journal, starts it, and records its id.
func (p *prefix) create(ctx context.Context, run int64, rel string) (fileSink, error) {
	key := p.root + rel
	if _, err := p.pool.Exec(ctx, `INSERT INTO export_uploads (output_id, run_id, key) VALUES ($1, $2, $3)
		ON CONFLICT (output_id, key) DO UPDATE SET run_id = EXCLUDED.run_id, upload_id = NULL, bytes = NULL`,
		p.outputID, run, key); err != nil {
		return nil, fmt.Errorf("export: recording the upload of %s: %w", key, err)
	}
	out, err := p.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
		Bucket:            &p.bucketName,
		Key:               &key,
		ContentType:       aws.String("application/vnd.apache.parquet"),
		Metadata:          map[string]string{metaOutput: p.outputID, metaRun: strconv.FormatInt(run, 10)},
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc32,
	})
	if err != nil {
		return nil, fmt.Errorf("export: starting the upload of s3://%s/%s: %w", p.bucketName, key, p.explain(err))
	}
	mf := &multipartFile{ctx: ctx, p: p, key: key, uploadID: *out.UploadId, buf: getPart()}
	if _, err := p.pool.Exec(ctx, `UPDATE export_uploads SET upload_id = $3 WHERE output_id = $1 AND key = $2`,
		p.outputID, key, mf.uploadID); err != nil {
		mf.abort()
		return nil, fmt.Errorf("export: recording the upload of %s: %w", key, err)
	}
	return mf, nil
}

// publish records each file's size in the journal, then completes every
// upload. A key already taken is never replaced: each completion is
// conditional, and an object found there stops the run.
func (p *prefix) publish(ctx context.Context, run int64, files []pendingFile) error {
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		for _, f := range files {
			if _, err := tx.Exec(ctx, `UPDATE export_uploads SET bytes = $3 WHERE output_id = $1 AND key = $2`,
				p.outputID, p.root+f.rel, f.info.Bytes); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("export: writing the run's journal: %w", err)
	}
	for _, f := range files {
		mf := f.sink.(*multipartFile)
		done, err := p.ifAbsent(ctx, mf.key, func(conditional bool) error {
			in := &s3.CompleteMultipartUploadInput{Bucket: &p.bucketName, Key: &mf.key, UploadId: &mf.uploadID,
				MultipartUpload: &types.CompletedMultipartUpload{Parts: mf.parts}}
			if conditional {
				in.IfNoneMatch = aws.String("*")
			}
			_, err := p.client.CompleteMultipartUpload(ctx, in)
			return err
		})
		if err != nil {
			return fmt.Errorf("export: completing s3://%s/%s: %w", p.bucketName, mf.key, p.explain(err))
		}
		if !done {
			return fmt.Errorf("export: s3://%s/%s already exists and adsync did not write it in this run; it is left as it is", p.bucketName, mf.key)
		}
	}
	return nil
}

// discard undoes a run that failed in this process, from its journal as
// recovery would: uploads aborted, completed objects removed. The journal
// stays when that fails, for the next run to finish the job.
func (p *prefix) discard(ctx context.Context, run int64) {
	j, err := p.journal(ctx, &run)
	if err == nil && p.undo(ctx, run, j[run]) == nil {
		p.finish(ctx, run)
	}
}

func (p *prefix) finish(ctx context.Context, run int64) {
	_, _ = p.pool.Exec(ctx, `DELETE FROM export_uploads WHERE output_id = $1 AND run_id = $2`, p.outputID, run)
}

// upload is a journaled upload: its key, its id once the store gave one,
// and the file's size once the run published it.
type upload struct {
	key   string
	id    *string
	bytes *int64
}

// journal reads the journaled uploads of run (of every run when nil), by
// run.
func (p *prefix) journal(ctx context.Context, run *int64) (map[int64][]upload, error) {
	rows, err := p.pool.Query(ctx, `SELECT run_id, key, upload_id, bytes FROM export_uploads
		WHERE output_id = $1 AND ($2::bigint IS NULL OR run_id = $2) ORDER BY run_id, key`, p.outputID, run)
	if err != nil {
		return nil, err
	}
	byRun := map[int64][]upload{}
	var r int64
	var u upload
	_, err = pgx.ForEachRow(rows, []any{&r, &u.key, &u.id, &u.bytes}, func() error {
		byRun[r] = append(byRun[r], u)
		return nil
	})
	return byRun, err
}

// recover finishes or undoes the runs the journal still holds. A committed
// run gets its manifest (written again if the run stopped before it); a run
// that did not commit is undone.
func (p *prefix) recover(ctx context.Context) error {
	j, err := p.journal(ctx, nil)
	if err != nil {
		return err
	}
	runs := slices.Sorted(maps.Keys(j))
	for _, run := range runs {
		if err := settle(ctx, p.pool, p, run, func() error { return p.undo(ctx, run, j[run]) },
			"interrupted; its uploads were aborted and its objects removed by the next export"); err != nil {
			return err
		}
		p.finish(ctx, run)
	}
	return nil
}

// undo aborts run's uploads and removes every object it completed, each
// only if the object's metadata names this output and that run and its
// size is the one journaled. Other uploads and objects under the prefix are
// never touched.
func (p *prefix) undo(ctx context.Context, run int64, uploads []upload) error {
	for _, u := range uploads {
		if err := p.abortUpload(ctx, u); err != nil {
			return err
		}
		if err := p.removeIfWritten(ctx, u.key, run, u.bytes); err != nil {
			return err
		}
	}
	return nil
}

// abortUpload aborts a journaled upload by its id. One whose id was never
// journaled (the run died between starting it and recording it) is found
// by listing the uploads at exactly its key, a key only that run writes.
func (p *prefix) abortUpload(ctx context.Context, u upload) error {
	abort := func(id *string) error {
		_, err := p.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &p.bucketName, Key: &u.key, UploadId: id})
		var nsu *types.NoSuchUpload
		if err != nil && !errors.As(err, &nsu) {
			return fmt.Errorf("export: aborting the upload of s3://%s/%s: %w", p.bucketName, u.key, p.explain(err))
		}
		return nil
	}
	if u.id != nil {
		return abort(u.id)
	}
	pg := s3.NewListMultipartUploadsPaginator(p.client, &s3.ListMultipartUploadsInput{Bucket: &p.bucketName, Prefix: &u.key})
	for pg.HasMorePages() {
		page, err := pg.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("export: listing the uploads of s3://%s/%s: %w", p.bucketName, u.key, p.explain(err))
		}
		for _, up := range page.Uploads {
			if aws.ToString(up.Key) == u.key {
				if err := abort(up.UploadId); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// removeIfWritten deletes the object at key if run wrote it.
func (p *prefix) removeIfWritten(ctx context.Context, key string, run int64, size *int64) error {
	a, err := p.bucket.Attributes(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	if err != nil {
		return p.explain(err)
	}
	if a.Metadata[metaOutput] != p.outputID || a.Metadata[metaRun] != strconv.FormatInt(run, 10) || (size != nil && a.Size != *size) {
		return nil // not what that run wrote: leave it
	}
	return p.explain(p.bucket.Delete(ctx, key))
}

// probeWritable writes and removes an object under the prefix (created
// only if its random key is free).
func (p *prefix) probeWritable(ctx context.Context) error {
	key := p.root + ".adsync-write-check-" + newUUID() + ".tmp"
	if created, err := p.putIfAbsent(ctx, key, nil, ""); err != nil || !created {
		if err == nil {
			err = errors.New("the check's random key is taken")
		}
		return fmt.Errorf("export: %s is not writable: %w", p.loc, p.explain(err))
	}
	if err := p.bucket.Delete(ctx, key); err != nil {
		return fmt.Errorf("export: removing the write check s3://%s/%s: %w", p.bucketName, key, p.explain(err))
	}
	return nil
}

// explain turns the store's errors into ones that say what to check.
func (p *prefix) explain(err error) error {
	if err == nil {
		return nil
	}
	if refused := p.refused(err); refused != nil {
		return refused
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "ExpiredToken", "InvalidToken":
			return fmt.Errorf("%w (check the AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or ~/.aws)", err)
		case "NoSuchBucket":
			return fmt.Errorf("%w (create the bucket %s first, or check the endpoint and region)", err, p.bucketName)
		}
	}
	if strings.Contains(err.Error(), "get credentials") {
		return fmt.Errorf("%w (no AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or add them to ~/.aws)", err)
	}
	if gcerrors.Code(err) == gcerrors.PermissionDenied {
		return fmt.Errorf("%w (check the AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or ~/.aws)", err)
	}
	return err
}

// multipartFile is one file of a run: a multipart upload whose parts are
// sent as they fill, at most partsInFlight at a time.
type multipartFile struct {
	ctx      context.Context
	p        *prefix
	key      string
	uploadID string
	buf      []byte

	wg    gosync.WaitGroup
	sem   chan struct{}
	mu    gosync.Mutex
	parts []types.CompletedPart
	err   error
}

var partPool = gosync.Pool{New: func() any { b := make([]byte, 0, partSize); return &b }}

func getPart() []byte { return (*partPool.Get().(*[]byte))[:0] }

func putPart(b []byte) {
	if cap(b) == partSize {
		partPool.Put(&b)
	}
}

func (m *multipartFile) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		if err := m.failed(); err != nil {
			return 0, err
		}
		k := min(len(b), partSize-len(m.buf))
		m.buf = append(m.buf, b[:k]...)
		b = b[k:]
		if len(m.buf) == partSize {
			m.send()
		}
	}
	return n, nil
}

func (m *multipartFile) failed() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// send uploads the filled buffer as the next part, in the background.
func (m *multipartFile) send() {
	if m.sem == nil {
		m.sem = make(chan struct{}, partsInFlight)
	}
	m.mu.Lock()
	num := int32(len(m.parts) + 1)
	m.parts = append(m.parts, types.CompletedPart{PartNumber: aws.Int32(num)})
	m.mu.Unlock()
	m.sem <- struct{}{} // a slot first, then a buffer: at most partsInFlight+1 exist
	body := m.buf
	m.buf = getPart()
	m.wg.Add(1)
	go func() {
		defer func() { <-m.sem; m.wg.Done(); putPart(body) }()
		out, err := m.p.client.UploadPart(m.ctx, &s3.UploadPartInput{
			Bucket: &m.p.bucketName, Key: &m.key, UploadId: &m.uploadID, PartNumber: aws.Int32(num),
			Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32,
		})
		m.mu.Lock()
		defer m.mu.Unlock()
		if err != nil {
			if m.err == nil {
				m.err = fmt.Errorf("uploading part %d of s3://%s/%s: %w", num, m.p.bucketName, m.key, m.p.explain(err))
			}
			return
		}
		m.parts[num-1].ETag = out.ETag
		m.parts[num-1].ChecksumCRC32 = out.ChecksumCRC32
	}()
}

// complete sends the last part and waits for every part.
func (m *multipartFile) complete() error {
	if len(m.buf) > 0 || len(m.parts) == 0 {
		m.send()
	}
	m.wg.Wait()
	m.buf = nil
	return m.failed()
}

// abort stops the upload; the parts sent so far are dropped by the store.
func (m *multipartFile) abort() {
	m.wg.Wait()
	if m.buf != nil {
		putPart(m.buf)
		m.buf = nil
	}
	ctx := context.WithoutCancel(m.ctx)
	_, _ = m.p.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &m.p.bucketName, Key: &m.key, UploadId: &m.uploadID})
}
