package export

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// convert turns a value scanned from Postgres into what the Parquet writer
// expects for the column's kind.
func convert(c Column, v any) (any, error) {
	if v == nil {
		return convertNull(c)
	}
	switch c.Kind {
	case String:
		switch x := v.(type) {
		case string:
			return x, nil
		case fmt.Stringer:
			return x.String(), nil
		}
		return fmt.Sprint(v), nil
	case Int64, Micros:
		return convertInt64(c, v)
	case Float64:
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		}
	case Bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case Timestamp:
		if t, ok := v.(time.Time); ok {
			return t.UTC().Truncate(time.Millisecond), nil
		}
	case Date:
		if t, ok := v.(time.Time); ok {
			return t.UTC(), nil
		}
	case JSON:
		return convertJSON(c, v)
	case StringList:
		return convertStringList(c, v)
	case Int64List:
		return convertInt64List(c, v)
	}
	return nil, cannotConvert(c, v)
}

// cannotConvert is the error for a value of a Go type column c's kind does
// not take.
func cannotConvert(c Column, v any) error {
	return fmt.Errorf("column %s: cannot export a %T as kind %d", c.Name, v, c.Kind)
}

// convertNull is what a NULL becomes in column c: an empty list for a list
// kind, nil where the column is nullable, an error elsewhere.
func convertNull(c Column) (any, error) {
	switch c.Kind {
	case StringList:
		return []string{}, nil
	case Int64List:
		return []int64{}, nil
	}
	if !c.Nullable {
		return nil, fmt.Errorf("column %s: null in a column declared not null", c.Name)
	}
	return nil, nil
}

// convertInt64 turns an integer, or a numeric that fits, into an int64.
func convertInt64(c Column, v any) (any, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case int32:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int:
		return int64(x), nil
	case pgtype.Numeric:
		i, err := x.Int64Value()
		if err != nil || !i.Valid {
			return nil, fmt.Errorf("column %s: numeric %v does not fit int64", c.Name, x)
		}
		return i.Int64, nil
	}
	return nil, cannotConvert(c, v)
}

// convertJSON turns a JSON value (as text, bytes or decoded) into its text.
func convertJSON(c Column, v any) (any, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
		return string(b), nil
	}
}

// convertStringList turns an array into a []string; a NULL element is
// left out.
func convertStringList(c Column, v any) (any, error) {
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if e != nil {
				out = append(out, fmt.Sprint(e))
			}
		}
		return out, nil
	}
	return nil, cannotConvert(c, v)
}

// convertInt64List turns an array into a []int64; an element that is not
// an int64 (a NULL) is left out.
func convertInt64List(c Column, v any) (any, error) {
	switch x := v.(type) {
	case []int64:
		return x, nil
	case []any:
		out := make([]int64, 0, len(x))
		for _, e := range x {
			if n, ok := e.(int64); ok {
				out = append(out, n)
			}
		}
		return out, nil
	}
	return nil, cannotConvert(c, v)
}
