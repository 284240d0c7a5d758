package api

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// RequestEcho is the envelope's echo of the request ({"params":{...}}).
type RequestEcho struct {
	Params map[string]any `json:"params"`
}

// Single is the envelope of one record: {request:{params}, data:{...}}.
type Single[T any] struct {
	Request RequestEcho `json:"request"`
	Data    T           `json:"data"`
}

// List is the envelope of a list page: {request, next_cursor, data:[...]},
// plus total_count when it was asked for.
type List[T any] struct {
	Request    RequestEcho `json:"request"`
	NextCursor *string     `json:"next_cursor"`
	Data       []T         `json:"data"`
	TotalCount *int64      `json:"total_count,omitempty"`
}

// BatchItemEcho is one entry of a batch envelope's request array.
type BatchItemEcho struct {
	Params        map[string]any `json:"params"`
	OperationType string         `json:"operation_type"`
}

// Batch is the envelope of a batch call: request is an array, data is
// ordered like the request, item failures are under operation_errors.
type Batch[T any] struct {
	Request         []BatchItemEcho  `json:"request"`
	Data            []T              `json:"data"`
	OperationErrors []OperationError `json:"-"`
}

// UnmarshalJSON accepts operation_errors both as a flat list of entries
// carrying their index and as a list of per-item lists (the index being the
// position).
func (b *Batch[T]) UnmarshalJSON(data []byte) error {
	var raw struct {
		Request         []BatchItemEcho `json:"request"`
		Data            []T             `json:"data"`
		OperationErrors json.RawMessage `json:"operation_errors"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	b.Request, b.Data, b.OperationErrors = raw.Request, raw.Data, nil
	if len(raw.OperationErrors) == 0 || string(raw.OperationErrors) == "null" {
		return nil
	}
	var flat []OperationError
	if err := json.Unmarshal(raw.OperationErrors, &flat); err == nil {
		b.OperationErrors = flat
		return nil
	}
	var nested [][]OperationError
	if err := json.Unmarshal(raw.OperationErrors, &nested); err != nil {
		return fmt.Errorf("operation_errors: %w", err)
	}
	for i, errs := range nested {
		for _, e := range errs {
			e.Index = i
			b.OperationErrors = append(b.OperationErrors, e)
		}
	}
	return nil
}

// Decode unmarshals a response body into an envelope, naming the endpoint
// on failure.
func Decode[T any](endpoint string, body []byte) (T, error) {
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		return v, fmt.Errorf("%s: decoding the response: %w", endpoint, err)
	}
	return v, nil
}

// DecodeRawList is Decode[List[json.RawMessage]] in fewer passes over a
// large page: the standard decoder validates the body, then scans every
// record again to copy it out. Here the body is validated once and its
// records are sliced out of it (they share its memory). An envelope with
// any key but request, next_cursor, data and total_count (spelled so) takes
// the standard decoder, whose case-insensitive matching it does not repeat.
func DecodeRawList(endpoint string, body []byte) (List[json.RawMessage], error) {
	if json.Valid(body) {
		if l, ok := splitRawList(body); ok {
			return l, nil
		}
	}
	return Decode[List[json.RawMessage]](endpoint, body)
}

// SplitRawList is DecodeRawList without validating the records, for a
// caller that validates each record itself as it reads it anyway (the
// records' bytes are most of a page: this saves a pass over them). All the
// rest, the envelope and the punctuation between records, is checked as
// Decode checks it, so a body whose records are all valid JSON is valid
// and split as Decode splits it (a record that is not valid JSON may be
// split anyhow: the caller refuses it). Anything unusual takes Decode.
func SplitRawList(endpoint string, body []byte) (List[json.RawMessage], error) {
	if l, ok := splitRawList(body); ok {
		return l, nil
	}
	return Decode[List[json.RawMessage]](endpoint, body)
}

// splitRawList splits a list envelope, checking everything but the data
// array's elements: ok is false for anything it does not take for sure.
func splitRawList(body []byte) (l List[json.RawMessage], ok bool) {
	seenData := false
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return l, false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return l, skipSpace(body, i+1) == len(body)
	}
	for {
		if i >= len(body) || body[i] != '"' {
			return l, false
		}
		end := skipString(body, i)
		if end > len(body) || end-i < 2 {
			return l, false
		}
		key := body[i+1 : end-1]
		i = skipSpace(body, end)
		if i >= len(body) || body[i] != ':' {
			return l, false
		}
		i = skipSpace(body, i+1)
		if i >= len(body) {
			return l, false
		}
		var err error
		switch string(key) {
		case "data":
			// A repeated data key would drop the first one's records
			// unchecked: the standard decoder takes that body.
			if seenData {
				return l, false
			}
			seenData = true
			if l.Data, i, ok = splitArray(body, i); !ok {
				return l, false
			}
		case "request", "next_cursor", "total_count":
			// Decoded by the standard decoder, which validates the value
			// (a value taken too short or too long is invalid JSON).
			vEnd := skipValue(body, i)
			if vEnd > len(body) || vEnd == i {
				return l, false
			}
			val := body[i:vEnd]
			switch string(key) {
			case "request":
				err = json.Unmarshal(val, &l.Request)
			case "next_cursor":
				err = json.Unmarshal(val, &l.NextCursor)
			default:
				err = json.Unmarshal(val, &l.TotalCount)
			}
			i = vEnd
		default:
			return l, false
		}
		if err != nil {
			return l, false
		}
		i = skipSpace(body, i)
		if i >= len(body) {
			return l, false
		}
		if body[i] == ',' {
			i = skipSpace(body, i+1)
			continue
		}
		return l, body[i] == '}' && skipSpace(body, i+1) == len(body)
	}
}

// splitArray slices the elements out of the array at b[i] (nil for null)
// and returns the index after it. Each element is taken by its brackets and
// quotes, not validated: one that is valid JSON is exactly the element the
// standard decoder would take; the punctuation between them is checked.
func splitArray(b []byte, i int) ([]json.RawMessage, int, bool) {
	if bytes.HasPrefix(b[i:], []byte("null")) {
		return nil, i + 4, true
	}
	if b[i] != '[' {
		return nil, 0, false
	}
	out := []json.RawMessage{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, i + 1, true
	}
	for {
		if i >= len(b) {
			return nil, 0, false
		}
		end := skipValue(b, i)
		if end > len(b) || end == i {
			return nil, 0, false
		}
		out = append(out, b[i:end:end])
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, 0, false
		}
		switch b[i] {
		case ']':
			return out, i + 1, true
		case ',':
			i = skipSpace(b, i+1)
		default:
			return nil, 0, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i]: after
// its closing quote, len(b)+1 when it has none.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		if j >= len(b) {
			return len(b) + 1
		}
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b) + 1
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// skipValue returns the index after the value starting at b[i], taken by
// its brackets and quotes (exact for valid JSON); len(b)+1 when an object,
// array or string does not end.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i > len(b) {
					return i
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b) + 1
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
