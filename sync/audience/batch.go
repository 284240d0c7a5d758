package audience

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Limits of one audience users request (spec document 2, Limits: "2,500
// operations; body 5,000,000 bytes").
const (
	MaxUsersPerRequest = 2500
	MaxBodyBytes       = 5_000_000
)

// Operation types of an audience users request.
const (
	OpUpdate = "Update"
	OpDelete = "Delete"
)

// timeLayout is how effective_at and expires_at are written (ISO 8601 UTC,
// seconds, like every time of the advertising interface).
const timeLayout = "2006-01-02T15:04:05Z"

// errUserTooLarge is a single user object that cannot fit in a request.
var errUserTooLarge = errors.New("user object larger than a whole request body")

// batcher packs user objects into request bodies of one operation:
// [{"operation_type":OP,"params":{"users":[...],"effective_at":...,"expires_at":...}}].
// It measures the exact bytes it will send, so no body is ever over the
// limits.
type batcher struct {
	op               string
	maxUsers, maxLen int
	prefix, suffix   []byte
	body             []byte
	users            int
	flush            func(op string, body []byte, users int) error
}

func newBatcher(op string, effectiveAt, expiresAt *time.Time, maxUsers, maxBytes int, flush func(op string, body []byte, users int) error) *batcher {
	b := &batcher{op: op, maxUsers: maxUsers, maxLen: maxBytes, flush: flush}
	if b.maxUsers <= 0 {
		b.maxUsers = MaxUsersPerRequest
	}
	if b.maxLen <= 0 {
		b.maxLen = MaxBodyBytes
	}
	b.prefix = fmt.Appendf(nil, `[{"operation_type":%s,"params":{"users":[`, strconv.Quote(op))
	b.suffix = []byte("]")
	if effectiveAt != nil {
		b.suffix = fmt.Appendf(b.suffix, `,"effective_at":"%s"`, effectiveAt.UTC().Format(timeLayout))
	}
	if expiresAt != nil {
		b.suffix = fmt.Appendf(b.suffix, `,"expires_at":"%s"`, expiresAt.UTC().Format(timeLayout))
	}
	b.suffix = append(b.suffix, "}}]"...)
	b.body = append(make([]byte, 0, 1<<20), b.prefix...)
	return b
}

// add appends one user object (its JSON), flushing the current body first
// when the user would not fit.
func (b *batcher) add(user []byte) error {
	// One more user costs its bytes and a comma.
	if b.users > 0 && (b.users >= b.maxUsers || len(b.body)+1+len(user)+len(b.suffix) > b.maxLen) {
		if err := b.close(); err != nil {
			return err
		}
	}
	if len(b.prefix)+len(user)+len(b.suffix) > b.maxLen {
		return errUserTooLarge
	}
	if b.users > 0 {
		b.body = append(b.body, ',')
	}
	b.body = append(b.body, user...)
	b.users++
	return nil
}

// close flushes the body in progress, if it holds any user.
func (b *batcher) close() error {
	if b.users == 0 {
		return nil
	}
	b.body = append(b.body, b.suffix...)
	if err := b.flush(b.op, b.body, b.users); err != nil {
		return err
	}
	b.body = append(b.body[:0], b.prefix...)
	b.users = 0
	return nil
}
