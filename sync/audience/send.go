package audience

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PermanentError is a batch the service refused for good (a 4xx other than
// 429, or item-level operation_errors): sending it again cannot succeed.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent tells api.Explain that no retry changes the answer.
func (e *PermanentError) Permanent() bool { return true }

// Sender sends stored batches.
type Sender struct {
	Pool *pgxpool.Pool
	API  *api.Client
	// ClientFor, when set, is the client that acts on an account (a user
	// whose role there allows audience changes); nil: API.
	ClientFor func(ctx context.Context, accountID string) (*api.Client, error)
	// Tries bounds the sends of a batch within one call whose answers
	// report fewer users than were sent (default 3); past it, Send returns
	// the last error for the job layer to retry later. Faults of the
	// connection and 5xx are retried by the client, and past that by the
	// job's attempts, never here.
	Tries int
	// OnAnswer, when set, is told each answer's users sent and accepted
	// (success_count), for metrics.
	OnAnswer func(sent, accepted int)
	// Backoff is the pause before the second send, doubled for each next
	// one (default 200ms).
	Backoff time.Duration
}

// batchRow is what Send needs of a batch.
type batchRow struct {
	state                 string
	body                  []byte
	users                 int
	accountID, audienceID string
}

// countAnswer is the data of an audience users answer.
type countAnswer struct {
	SuccessCount *int `json:"success_count"`
	TotalCount   *int `json:"total_count"`
}

// Send posts batch seq of upload uploadID until the service reports
// success_count == total_count == users sent, then marks it done and adds
// (or removes) its identifiers in audience_members, in one transaction. A
// batch already done or failed is not sent. A count mismatch, a 5xx or a
// connection reset sends the same body again (the operation is idempotent).
// Send returns a *api.RetryAtError when the rate limit says to wait, a
// *PermanentError when the batch was refused for good (it is then marked
// failed), and any other error when the batch should be tried again later.
func (s *Sender) Send(ctx context.Context, uploadID int64, seq int) error {
	b, err := s.claim(ctx, uploadID, seq)
	if err != nil || b == nil {
		return err
	}
	tries := s.Tries
	if tries <= 0 {
		tries = 3
	}
	backoff := s.Backoff
	if backoff <= 0 {
		backoff = 200 * time.Millisecond
	}
	req := usersRequest(b)
	c := s.API
	if s.ClientFor != nil {
		if c, err = s.ClientFor(ctx, b.accountID); err != nil {
			return err
		}
	}
	var lastErr error
	for try := 1; try <= tries; try++ {
		if try > 1 {
			if err := sleep(ctx, backoff<<(try-2)); err != nil {
				return err
			}
		}
		resp, err := c.Do(ctx, req)
		retried := 0
		if resp != nil {
			retried = resp.Attempts - 1 // the client's own resends (5xx, resets, rate waits)
		}
		if try > 1 {
			retried++
		}
		if err == nil {
			var n countAnswer
			if n, err = s.decodeCounts(b, resp.Body); err == nil {
				if n.SuccessCount != nil && n.TotalCount != nil && *n.SuccessCount == *n.TotalCount && *n.TotalCount == b.users {
					return s.finish(ctx, uploadID, seq, "done", retried, *n.SuccessCount, *n.TotalCount, "", nil)
				}
				// Spec: "any difference means retry".
				err = fmt.Errorf("success_count %s of total_count %s for %d users sent", intOrNull(n.SuccessCount), intOrNull(n.TotalCount), b.users)
				_ = s.note(ctx, uploadID, seq, retried, err)
				lastErr = err
				continue
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.refused(ctx, uploadID, seq, retried, err)
	}
	return fmt.Errorf("audience upload %d batch %d: %d sends: %w", uploadID, seq, tries, lastErr)
}

// claim reads batch seq of upload uploadID and marks it sent (one more
// attempt). It returns nil, and sends nothing, for a batch already done or
// failed, and a *PermanentError for a batch that does not exist.
func (s *Sender) claim(ctx context.Context, uploadID int64, seq int) (*batchRow, error) {
	var b batchRow
	err := s.Pool.QueryRow(ctx, `
		SELECT b.state, b.body, b.user_count, u.account_id, u.audience_id
		FROM audience_batches b JOIN audience_uploads u ON u.id = b.upload_id
		WHERE b.upload_id = $1 AND b.seq = $2`, uploadID, seq).Scan(&b.state, &b.body, &b.users, &b.accountID, &b.audienceID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &PermanentError{Err: fmt.Errorf("audience upload %d: batch %d not found", uploadID, seq)}
	}
	if err != nil {
		return nil, err
	}
	if b.state == "done" || b.state == "failed" {
		// Finished: never sent again (a rerun or a duplicate job).
		return nil, nil
	}
	if _, err := s.Pool.Exec(ctx, `UPDATE audience_batches SET state = 'sent', attempts = attempts + 1, sent_at = now()
		WHERE upload_id = $1 AND seq = $2`, uploadID, seq); err != nil {
		return nil, err
	}
	return &b, nil
}

// usersRequest is the POST of b's users to its audience.
func usersRequest(b *batchRow) *api.Request {
	return &api.Request{
		Method: "POST", Base: api.BaseAds, Auth: api.AuthUser,
		Path:     "/12/accounts/" + url.PathEscape(b.accountID) + "/custom_audiences/" + url.PathEscape(b.audienceID) + "/users",
		Endpoint: api.EndpointAudienceUsers, AccountID: b.accountID,
		JSON: b.body, Idempotent: true, // the same users sent again change nothing
	}
}

// decodeCounts decodes the counts of an answer to b's send and tells
// OnAnswer the users sent and accepted.
func (s *Sender) decodeCounts(b *batchRow, body []byte) (countAnswer, error) {
	ans, err := api.Decode[api.Single[countAnswer]](api.EndpointAudienceUsers, body)
	if err != nil {
		return countAnswer{}, err
	}
	if s.OnAnswer != nil && ans.Data.SuccessCount != nil {
		s.OnAnswer(b.users, *ans.Data.SuccessCount)
	}
	return ans.Data, nil
}

// refused ends a send that failed with err: a wait the service named, or a
// fault the client already retried as far as it does, is noted and
// returned for the job to snooze or try later; anything else marks the
// batch failed, with its item errors, and is returned as a
// *PermanentError.
func (s *Sender) refused(ctx context.Context, uploadID int64, seq, retried int, err error) error {
	if api.Explain(err).Verdict != api.Final {
		// A wait the service named, or a fault the client already
		// retried as far as it does: the job snoozes or tries later.
		_ = s.note(ctx, uploadID, seq, retried, err)
		return err
	}
	var be *api.BatchError
	errors.As(err, &be)
	var opErrs []api.OperationError
	if be != nil {
		opErrs = be.Errors
	}
	if ferr := s.finish(ctx, uploadID, seq, "failed", retried, 0, 0, err.Error(), opErrs); ferr != nil {
		return ferr
	}
	return &PermanentError{Err: err}
}

// intOrNull is *p, or "null" for nil.
func intOrNull(p *int) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// note records a failed send that will be repeated.
func (s *Sender) note(ctx context.Context, uploadID int64, seq, retried int, err error) error {
	_, e := s.Pool.Exec(context.WithoutCancel(ctx), `UPDATE audience_batches SET retries = retries + $3, last_error = $4
		WHERE upload_id = $1 AND seq = $2`, uploadID, seq, retried, err.Error())
	return e
}

// MarkFailed ends a batch that will not be tried again (its job ran out of
// attempts).
func (s *Sender) MarkFailed(ctx context.Context, uploadID int64, seq int, reason string) error {
	return s.finish(ctx, uploadID, seq, "failed", 0, 0, 0, reason, nil)
}

// finish ends a batch: state, counts, item errors and, for a done batch,
// the stored membership; the upload ends with its last batch. The upload
// row is locked first so two batches finishing together cannot both miss
// being last.
func (s *Sender) finish(ctx context.Context, uploadID int64, seq int, state string, retried, success, total int, lastErr string, opErrs []api.OperationError) error {
	ctx = context.WithoutCancel(ctx) // what the service confirmed must be recorded
	tx, err := s.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	audienceID, err := lockUpload(ctx, tx, uploadID)
	if err != nil {
		return err
	}
	var current string
	var body []byte
	if err := tx.QueryRow(ctx, `SELECT state, body FROM audience_batches WHERE upload_id = $1 AND seq = $2`, uploadID, seq).Scan(&current, &body); err != nil {
		return err
	}
	if current == "done" {
		return nil
	}
	var successP, totalP *int
	if state == "done" {
		successP, totalP = &success, &total
	}
	var lastErrP *string
	if lastErr != "" {
		lastErrP = &lastErr
	}
	_, err = tx.Exec(ctx, `UPDATE audience_batches SET state = $3, retries = retries + $4, success_count = $5, total_count = $6,
		last_error = coalesce($7, last_error), finished_at = now() WHERE upload_id = $1 AND seq = $2`,
		uploadID, seq, state, retried, successP, totalP, lastErrP)
	if err != nil {
		return err
	}
	if len(opErrs) > 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM audience_batch_errors WHERE upload_id = $1 AND seq = $2`, uploadID, seq); err != nil {
			return err
		}
		rows := make([][]any, len(opErrs))
		for i, oe := range opErrs {
			var param *string
			if oe.Parameter != "" {
				param = &oe.Parameter
			}
			rows[i] = []any{uploadID, int32(seq), int32(oe.Index), oe.Code, oe.Message, param}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"audience_batch_errors"},
			[]string{"upload_id", "seq", "index", "code", "message", "parameter"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
	}
	if state == "done" {
		if err := applyMembership(ctx, tx, audienceID, body); err != nil {
			return fmt.Errorf("audience upload %d batch %d: membership: %w", uploadID, seq, err)
		}
	}
	if err := endIfLastBatch(ctx, tx, uploadID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// applyMembership adds (Update) or removes (Delete) the identifiers of a
// sent body in audience_members.
func applyMembership(ctx context.Context, tx pgx.Tx, audienceID string, body []byte) error {
	var ops []struct {
		OperationType string `json:"operation_type"`
		Params        struct {
			Users []map[string][]string `json:"users"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &ops); err != nil {
		return err
	}
	for _, op := range ops {
		var types, hashes []string
		for _, u := range op.Params.Users {
			for t, vs := range u {
				for _, v := range vs {
					types = append(types, t)
					hashes = append(hashes, v)
				}
			}
		}
		var q string
		if op.OperationType == OpDelete {
			q = `DELETE FROM audience_members m USING unnest($2::text[], $3::text[]) AS x(t, h)
				WHERE m.audience_id = $1 AND m.type = x.t AND m.hash = x.h`
		} else {
			q = `INSERT INTO audience_members (audience_id, type, hash)
				SELECT $1, t, h FROM unnest($2::text[], $3::text[]) AS x(t, h) ON CONFLICT DO NOTHING`
		}
		if _, err := tx.Exec(ctx, q, audienceID, types, hashes); err != nil {
			return err
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
