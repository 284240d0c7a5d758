package store

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// RunSummary is one recorded pipeline run, as status shows it.
type RunSummary struct {
	ID         int64
	Pipeline   string
	Trigger    string
	StartedAt  time.Time
	FinishedAt *time.Time
	Outcome    string
	Counts     map[string]any
	Error      string
}

// CountsSummary renders a run's counts compactly: top-level numbers as
// k=v, nested per-entity counts summed by kind of count.
func (r RunSummary) CountsSummary() string {
	c := r.Counts
	if len(c) == 0 {
		return ""
	}
	sums := map[string]float64{}
	for k, v := range c {
		switch x := v.(type) {
		case float64:
			sums[k] += x
		case map[string]any:
			for kk, vv := range x {
				if f, ok := vv.(float64); ok {
					sums[kk] += f
				}
			}
		}
	}
	if len(sums) == 0 {
		b, _ := json.Marshal(c)
		return string(b)
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > maxCountsShown {
		return manyCounts(keys, sums)
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%g", k, sums[k])
	}
	return strings.Join(parts, " ")
}

// maxCountsShown bounds the counts a run's line names one by one: an
// export counts every table (over two hundred).
const maxCountsShown = 12

// manyCounts renders counts past maxCountsShown as how many there are,
// their sum and how many are zero, then the largest (ties by name) up to
// maxCountsShown; the runs page and sync_runs.counts hold them all.
func manyCounts(keys []string, sums map[string]float64) string {
	var total float64
	var zero int
	nonzero := make([]string, 0, len(keys))
	for _, k := range keys {
		total += sums[k]
		if sums[k] == 0 {
			zero++
		} else {
			nonzero = append(nonzero, k)
		}
	}
	sort.SliceStable(nonzero, func(i, j int) bool { return sums[nonzero[i]] > sums[nonzero[j]] })
	shown := nonzero[:min(len(nonzero), maxCountsShown)]
	parts := []string{fmt.Sprintf("%d counts, %g in all, %d zero", len(keys), total, zero)}
	if len(shown) > 0 {
		parts[0] += "; largest:"
	}
	for _, k := range shown {
		parts = append(parts, fmt.Sprintf("%s=%g", k, sums[k]))
	}
	if more := len(nonzero) - len(shown); more > 0 {
		parts = append(parts, fmt.Sprintf("(+%d more, on the runs page)", more))
	}
	return strings.Join(parts, " ")
}

// QueueDepth counts a queue's jobs in one state.
type QueueDepth struct {
	Queue string
	State string
	Jobs  int64
}

// FailedJob is a job that failed (retryable), was cancelled or was
// discarded: the jobs someone may need to look at.
type FailedJob struct {
	ID          int64
	Kind        string
	Queue       string
	State       string // retryable, cancelled or discarded
	Attempt     int
	MaxAttempts int
	// LastError is the last attempt's error, redacted; empty when none was
	// recorded (a job cancelled before it ran).
	LastError string
	At        time.Time
}

// Status is what `adsync status` shows.
type Status struct {
	Runs   []RunSummary
	Queues []QueueDepth
	Failed []FailedJob
}

// ReadStatus reads the limit most recent runs, queue depth by state and the
// limit most recent failed, cancelled and discarded jobs.
func ReadStatus(ctx context.Context, pool *pgxpool.Pool, limit int) (*Status, error) {
	if limit < 1 {
		return nil, fmt.Errorf("status: limit %d: must be at least 1", limit)
	}
	st := &Status{}
	rows, err := pool.Query(ctx, `SELECT id, pipeline, trigger, started_at, finished_at, outcome, counts, coalesce(error, '')
		FROM sync_runs ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var r RunSummary
		var counts []byte
		if err := rows.Scan(&r.ID, &r.Pipeline, &r.Trigger, &r.StartedAt, &r.FinishedAt, &r.Outcome, &counts, &r.Error); err != nil {
			rows.Close()
			return nil, err
		}
		_ = json.Unmarshal(counts, &r.Counts)
		r.Error = Redact(r.Error)
		st.Runs = append(st.Runs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = pool.Query(ctx, `SELECT queue, state::text, count(*) FROM river_job GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var q QueueDepth
		if err := rows.Scan(&q.Queue, &q.State, &q.Jobs); err != nil {
			rows.Close()
			return nil, err
		}
		st.Queues = append(st.Queues, q)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = pool.Query(ctx, `SELECT id, kind, queue, state::text, attempt, max_attempts,
			coalesce(errors[array_length(errors, 1)]->>'error', ''), coalesce(finalized_at, attempted_at, created_at)
		FROM river_job WHERE state IN ('retryable', 'cancelled', 'discarded') ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var f FailedJob
		if err := rows.Scan(&f.ID, &f.Kind, &f.Queue, &f.State, &f.Attempt, &f.MaxAttempts, &f.LastError, &f.At); err != nil {
			return nil, err
		}
		f.LastError = Redact(f.LastError)
		st.Failed = append(st.Failed, f)
	}
	return st, rows.Err()
}

// secretPattern finds credentials that could have slipped into a message:
// OAuth and Bearer authorization values, token-like parameters, and
// passwords in connection URLs.
var secretPattern = regexp.MustCompile(`(?i)(bearer\s+|oauth\s+[^\n]*?oauth_signature="|(?:access_token|oauth_token|oauth_token_secret|token_secret|consumer_secret|access_secret|secret_key|password)["']?\s*[=:]\s*["']?)([^\s"'&@,]+)`)

// urlPasswordPattern finds the password of a URL's user information
// (scheme://user:password@host), not a host's port.
var urlPasswordPattern = regexp.MustCompile(`(://[^:/@\s]+:)[^\s"'&@,/]+@`)

// Redact replaces credential values in s with "[redacted]". adsync keeps
// secrets out of errors in the first place; this guards what is shown of
// errors recorded by any component.
func Redact(s string) string {
	return urlPasswordPattern.ReplaceAllString(secretPattern.ReplaceAllString(s, "${1}[redacted]"), "${1}[redacted]@")
}
