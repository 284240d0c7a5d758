package api

import (
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
