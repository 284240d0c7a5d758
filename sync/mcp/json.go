package mcp

import (
	"encoding/json"
	"fmt"
	"time"
)

// jsonNumber is an exact decimal as JSON number text.
func jsonNumber(b []byte) json.Number { return json.Number(string(b)) }

// text is v as the text rendering shows it.
func text(v any) string {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	case string:
		return x
	case json.Number:
		return x.String()
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprint(v)
}
