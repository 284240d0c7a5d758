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
	if l, ok := fastRawList(body); ok {
		return l, nil
	}
	return Decode[List[json.RawMessage]](endpoint, body)
}

func fastRawList(body []byte) (l List[json.RawMessage], ok bool) {
	if !json.Valid(body) {
		return l, false
	}
	i := skipSpace(body, 0)
	if body[i] != '{' {
		return l, false
	}
	i = skipSpace(body, i+1)
	if body[i] == '}' {
		return l, true
	}
	for {
		if body[i] != '"' {
			return l, false
		}
		end := skipString(body, i)
		key := body[i+1 : end-1]
		i = skipSpace(body, end)
		if body[i] != ':' {
			return l, false
		}
		i = skipSpace(body, i+1)
		vEnd := skipValue(body, i)
		val := body[i:vEnd]
		var err error
		switch string(key) {
		case "data":
			l.Data, ok = splitArray(val)
			if !ok {
				return l, false
			}
		case "request":
			err = json.Unmarshal(val, &l.Request)
		case "next_cursor":
			err = json.Unmarshal(val, &l.NextCursor)
		case "total_count":
			err = json.Unmarshal(val, &l.TotalCount)
		default:
			return l, false
		}
		if err != nil {
			return l, false
		}
		i = skipSpace(body, vEnd)
		if body[i] == ',' {
			i = skipSpace(body, i+1)
			continue
		}
		return l, body[i] == '}'
	}
}

// splitArray slices the elements out of a valid JSON array (nil for null).
func splitArray(v []byte) ([]json.RawMessage, bool) {
	if string(v) == "null" {
		return nil, true
	}
	if v[0] != '[' {
		return nil, false
	}
	out := []json.RawMessage{}
	i := skipSpace(v, 1)
	if v[i] == ']' {
		return out, true
	}
	for {
		end := skipValue(v, i)
		out = append(out, v[i:end:end])
		i = skipSpace(v, end)
		if v[i] == ']' {
			return out, true
		}
		i = skipSpace(v, i+1) // ','
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] (valid
// JSON).
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
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

// skipValue returns the index after the value starting at b[i] (valid
// JSON).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
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
		return i
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
