package export

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

var zstdCodec = zstd.Codec{Level: zstd.SpeedDefault}

// convert turns a value scanned from Postgres into what the Parquet writer
// expects for the column's kind.
func convert(c Column, v any) (any, error) {
	if v == nil {
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
	case StringList:
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
	case Int64List:
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
	}
	return nil, fmt.Errorf("column %s: cannot export a %T as kind %d", c.Name, v, c.Kind)
}
