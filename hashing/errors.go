package hashing

import (
	"fmt"
	"unicode/utf8"
)

// InvalidValueError says why one identifier value was rejected. It never holds
// the value itself: identifiers are personal data and errors end up in logs,
// reports and terminals, so it keeps only a redacted hint (first character and
// length) that is enough to find the value in the source file by line.
type InvalidValueError struct {
	Type   Type
	Reason string
	Hint   string
}

func (e *InvalidValueError) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("invalid %s: %s", e.Type, e.Reason)
	}
	return fmt.Sprintf("invalid %s: %s (value %s)", e.Type, e.Reason, e.Hint)
}

// invalid builds an InvalidValueError with a redacted hint of value.
func invalid(t Type, reason, value string) *InvalidValueError {
	return &InvalidValueError{Type: t, Reason: reason, Hint: redact(value)}
}

// redact keeps the first character and the length of v: "j… (17 chars)".
func redact(v string) string {
	if v == "" {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(v)
	first := string(r)
	if r == utf8.RuneError || r < ' ' {
		first = "?"
	}
	return fmt.Sprintf("%q… (%d chars)", first, utf8.RuneCountInString(v))
}

// RowError reports a row that cannot be used: where it is and why. Readers
// return it for one bad row and go on with the next; the pipeline records it
// for rows with invalid values.
type RowError struct {
	Line   int
	Reason string
}

func (e *RowError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// InputError is an input no user can be read from at all, whatever its
// rows hold: a missing file, a header or schema without an identifier
// column, a column naming no identifier type, a column of a type that holds
// no identifier, a query that writes. It is the input that must change, not
// a row (RowError) and not the reading (I/O or database errors): commands
// exit with their usage status for it. Nothing of such an input is used.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// InputErrorf builds an *InputError; %w wraps as in fmt.Errorf.
func InputErrorf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}
