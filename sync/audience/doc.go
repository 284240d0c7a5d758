// Package audience uploads hashed users to a custom audience: it reads a
// source (a CSV, NDJSON or Parquet file, or a read-only query; see source.go)
// through the hashing package, plans the upload as durable batches of
// at most 2,500 users and 5,000,000 bytes (spec document 2, Limits), and
// sends one batch per job, retrying until the service reports
// success_count == total_count == users sent.
//
// The plan (an audience_uploads row and all its audience_batches) is written
// in one transaction together with the jobs that send it, so a crash while
// planning leaves nothing behind and a planned upload always has its jobs.
// A batch marked done is never sent again.
//
// It owns the upload's plan, batches and their tables. It must not call River
// itself (its plan hands the fan-out to jobs through a callback), and must not
// send a batch marked done again.
package audience
