package audience

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DuplicateNameError is a custom audience name already taken in the account.
type DuplicateNameError struct {
	Name string
	// ExistingID is the audience holding the name, when the service said.
	ExistingID string
	Err        error
}

func (e *DuplicateNameError) Error() string {
	if e.ExistingID == "" {
		return fmt.Sprintf("a custom audience named %q already exists", e.Name)
	}
	return fmt.Sprintf("a custom audience named %q already exists: %s", e.Name, e.ExistingID)
}

func (e *DuplicateNameError) Unwrap() error { return e.Err }

// CreateAudience creates a CRM custom audience named name in accountID and
// returns its id. A name already in use answers a *DuplicateNameError
// naming the existing audience.
//
// A create whose answer was lost (5xx, connection reset) is sent again, as
// often as the client sends any request it may resend (MaxAttempts): the
// unique name makes that safe, and a duplicate answered to a resend means
// a lost attempt created the audience, so its id is returned.
func CreateAudience(ctx context.Context, c *api.Client, accountID, name string) (string, error) {
	var err error
	for try := 1; try <= max(c.MaxAttempts(), 1); try++ {
		var id string
		id, err = createOnce(ctx, c, accountID, name)
		var dup *DuplicateNameError
		switch {
		case err == nil:
			return id, nil
		case errors.As(err, &dup):
			if try > 1 && dup.ExistingID != "" {
				return dup.ExistingID, nil
			}
			return "", err
		case !answerLost(err):
			return "", err
		}
	}
	return "", err
}

// CreateForUpload returns the audience for an upload of o (its account,
// file, operation and mode) to a new CRM audience named name, and whether
// this call created it.
//
// It creates the audience, recording it in audience_creates. When the name
// is taken by the audience adsync created under it earlier, and that audience
// holds no upload other than one of the same input (the same file by its
// checksum, or the same query; same operation and mode), it returns that
// audience: the same command run again after an
// interruption continues its upload (Plan resumes or skips it). Any other
// holder of the name answers the *DuplicateNameError.
func CreateForUpload(ctx context.Context, pool *pgxpool.Pool, c *api.Client, name string, o PlanOptions) (id string, created bool, err error) {
	// The intent is recorded first: a process killed while the create is
	// on its way still knows the name's audience is its own.
	tag, err := pool.Exec(ctx, `INSERT INTO audience_creates (account_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
		o.AccountID, name)
	if err != nil {
		return "", false, err
	}
	earlier := tag.RowsAffected() == 0 // an earlier run recorded the name
	id, err = CreateAudience(ctx, c, o.AccountID, name)
	var dup *DuplicateNameError
	switch {
	case err == nil:
		_, err = pool.Exec(ctx, `UPDATE audience_creates SET audience_id = $3, created_at = now() WHERE account_id = $1 AND name = $2`,
			o.AccountID, name, id)
		return id, true, err
	case errors.As(err, &dup) && dup.ExistingID != "" && earlier:
		ours, oerr := createdForThisUpload(ctx, pool, name, dup.ExistingID, o)
		if oerr != nil {
			return "", false, oerr
		}
		if !ours {
			return "", false, err
		}
		return dup.ExistingID, false, nil
	case !answerLost(err) && ctx.Err() == nil && !earlier:
		// The service refused the create (the name was taken before this
		// run, or anything else): no audience of this run exists.
		_, _ = pool.Exec(context.WithoutCancel(ctx), `DELETE FROM audience_creates WHERE account_id = $1 AND name = $2 AND audience_id IS NULL`,
			o.AccountID, name)
	}
	return "", false, err
}

// createdForThisUpload reports whether audience id, holding name, is the
// one an earlier run of adsync created under name for an upload of o's
// input: it was recorded (or its create was on its way when that run
// stopped) and it holds no upload other than one of the same file,
// operation and mode.
func createdForThisUpload(ctx context.Context, pool *pgxpool.Pool, name, id string, o PlanOptions) (bool, error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var recorded *string
	err = tx.QueryRow(ctx, `SELECT audience_id FROM audience_creates WHERE account_id = $1 AND name = $2 FOR UPDATE`,
		o.AccountID, name).Scan(&recorded)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && recorded != nil && *recorded != id) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// The same input is the same file (its checksum), or the same query
	// on the same database: a query's users may have changed since.
	src, err := newSource(pool, &o)
	if err != nil {
		return false, fmt.Errorf("audience upload: %w", err)
	}
	sum, err := src.checksum(ctx)
	if err != nil {
		return false, fmt.Errorf("audience upload: %w", err)
	}
	column, same := "checksum", sum
	if sum == "" {
		column, same = "file_path", src.recorded()
	}
	var other bool
	err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM audience_uploads WHERE audience_id = $1
		AND NOT (account_id = $2 AND `+column+` = $3 AND operation = $4 AND mode = $5))`,
		id, o.AccountID, same, o.Operation, o.Mode).Scan(&other)
	if err != nil || other {
		return false, err
	}
	if _, err := tx.Exec(ctx, `UPDATE audience_creates SET audience_id = $3 WHERE account_id = $1 AND name = $2`, o.AccountID, name, id); err != nil {
		return false, err
	}
	return true, tx.Commit(ctx)
}

// answerLost reports whether a create may have happened without its answer
// reaching us.
func answerLost(err error) bool {
	m := api.Explain(err)
	return m.Verdict == api.Retry && (m.Status == 0 || m.Status >= 500)
}

func createOnce(ctx context.Context, c *api.Client, accountID, name string) (string, error) {
	resp, err := c.Do(ctx, &api.Request{
		Method: "POST", Base: api.BaseAds, Auth: api.AuthUser, AccountID: accountID,
		Path: "/12/accounts/" + url.PathEscape(accountID) + "/custom_audiences",
		Form: url.Values{"name": {name}},
	})
	var ae *api.AdsError
	if errors.As(err, &ae) {
		for _, d := range ae.Errors {
			// Spec, Errors: a duplicate audience name is a validation error;
			// its code starts with DUPLICATE_ and its message ends with the
			// existing audience's id.
			if strings.HasPrefix(d.Code, "DUPLICATE") {
				dup := &DuplicateNameError{Name: name, Err: err}
				if i := strings.LastIndex(d.Message, ": "); i >= 0 {
					dup.ExistingID = strings.TrimSpace(d.Message[i+2:])
				}
				return "", dup
			}
		}
	}
	if err != nil {
		return "", err
	}
	rec, err := api.Decode[api.Single[struct {
		ID string `json:"id"`
	}]]("POST /12/accounts/{account_id}/custom_audiences", resp.Body)
	if err != nil {
		return "", err
	}
	if rec.Data.ID == "" {
		return "", errors.New("custom audience created without an id in the answer")
	}
	return rec.Data.ID, nil
}

// Created is an audience adsync created (recorded in audience_creates).
type Created struct {
	AccountID, Name, ID string
}

// CreatedAudiences lists the audiences adsync created, oldest first. A
// database not migrated yet has none.
func CreatedAudiences(ctx context.Context, pool *pgxpool.Pool) ([]Created, error) {
	rows, err := pool.Query(ctx, `SELECT account_id, name, audience_id FROM audience_creates
		WHERE audience_id IS NOT NULL ORDER BY created_at, audience_id`)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
			return nil, nil
		}
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Created, error) {
		var c Created
		return c, r.Scan(&c.AccountID, &c.Name, &c.ID)
	})
}
