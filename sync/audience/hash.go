package audience

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/adsync/adsync/export/outfile"
	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/jackc/pgx/v5/pgxpool"
)

// HashOptions shape Hash: the source, the output, the rules.
type HashOptions struct {
	// In is the input: a file (CSV, NDJSON, Parquet; a folder or glob of
	// Parquet files), or "-" for Stdin. Query is a SQL query instead, run
	// on SourceURL, or on the database Pool opens when SourceURL is empty.
	In, Query, SourceURL string
	Pool                 func(context.Context) (*pgxpool.Pool, error)
	QueryTimeout         time.Duration
	Stdin                io.Reader
	// Out is the output file; empty writes the users to Stdout. The
	// report goes to Stdout beside a regular file, else to Stderr.
	Out            string
	Stdout, Stderr io.Writer
	MaxInvalid     bound.Max
	Normalizer     *hashing.Normalizer
	Reader         hashing.ReaderOptions
	Workers        int
}

// Hash normalizes and hashes every record of the source into one NDJSON
// user object per user (adsync audience hash), without the service. The
// users reach the output only once the whole input passed: a failed run
// (more invalid rows than MaxInvalid, an unreadable input) writes no user.
func Hash(ctx context.Context, o HashOptions) error {
	rr, in, closeInput, err := o.open(ctx)
	if err != nil {
		return fmt.Errorf("audience hash: %w", err)
	}
	defer func() { _ = closeInput() }()

	// A failed run must leave nothing that looks complete, and stdout (or
	// a FIFO) cannot be taken back.
	var file *outfile.File
	if o.Out != "" {
		file, err = outfile.Create(o.Out)
	} else {
		file, err = outfile.Spool(o.Stdout, "stdout")
	}
	if err != nil {
		return fmt.Errorf("audience hash: %w", err)
	}
	defer file.Abort() // no-op after commit
	reportTo := o.Stdout
	if file.Stream() { // stdout, /dev/stdout, a FIFO: the report must not join the users
		reportTo = o.Stderr
	}
	w := bufio.NewWriterSize(file, 256<<10)
	var line []byte
	report := &hashing.Report{}
	err = hashing.HashRecordsParallel(rr, o.Normalizer, o.Workers, func(u hashing.HashedUser) error {
		line = append(u.AppendJSON(line[:0]), '\n')
		_, err := w.Write(line)
		return err
	}, report)
	if err != nil {
		return fmt.Errorf("audience hash: %s: %w", in, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("audience hash: write: %w", err)
	}
	if err := report.WriteText(reportTo); err != nil {
		return fmt.Errorf("audience hash: report: %w", err)
	}
	if err := report.CheckInvalid(o.MaxInvalid); err != nil {
		return fmt.Errorf("audience hash: %s: %w", in, err)
	}
	if err := file.Commit(); err != nil {
		return fmt.Errorf("audience hash: %w", err)
	}
	return nil
}

// open opens what Hash reads, and names it for messages.
func (o *HashOptions) open(ctx context.Context) (rows hashing.RecordReader, name string, close func() error, err error) {
	switch {
	case o.Query != "":
		var pool *pgxpool.Pool
		if o.SourceURL == "" {
			if pool, err = o.Pool(ctx); err != nil {
				return nil, "", nil, err
			}
		}
		rows, close, err = OpenSource(ctx, pool, PlanOptions{Query: o.Query, SourceURL: o.SourceURL, Reader: o.Reader,
			QueryTimeout: o.QueryTimeout})
		return rows, "query", close, err
	case o.In == "-":
		// Hide stdin's Close: the command does not own it.
		in, format, err := hashing.Detect(struct{ io.Reader }{o.Stdin}, "")
		if err != nil {
			return nil, "", nil, err
		}
		rows, err = hashing.NewReader(in, format, o.Reader)
		if err != nil {
			return nil, "", nil, fmt.Errorf("stdin: %w", err)
		}
		return rows, "stdin", in.Close, nil
	}
	rows, _, close, err = hashing.OpenPath(o.In, o.Reader)
	return rows, o.In, close, err
}
