package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// errInput marks arguments a tool cannot answer as given; its message
// names what is allowed.
var errInput = errors.New("bad argument")

// inputErrorf is an input error naming what is allowed.
func inputErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errInput}, args...)...)
}

// Answer is every tool's structured output: its rows as objects, and
// whether the row cap cut some.
type Answer struct {
	Rows      []map[string]any `json:"rows" jsonschema:"the answer's rows, one object each"`
	Truncated bool             `json:"truncated" jsonschema:"true when the row cap cut rows: narrow the question"`
	Note      string           `json:"note,omitempty" jsonschema:"what the rows cover"`
}

// read runs fn in a READ ONLY transaction bounded by the statement
// timeout, then rolls it back: a tool can change nothing.
func (s *server) read(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("opening a read-only transaction: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	ms := s.opts.StatementTimeout.Milliseconds()
	if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", max(ms, 1))); err != nil {
		return fmt.Errorf("setting the statement timeout: %w", err)
	}
	return fn(tx)
}

// query reads sql's rows as objects in a read-only transaction, at most
// the row cap of them (it asks for one more to know whether it cut).
func (s *server) query(ctx context.Context, sql string, args ...any) (Answer, error) {
	var ans Answer
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		ans.Rows, ans.Truncated, err = collect(rows, s.opts.MaxRows)
		return err
	})
	return ans, err
}

// collect reads rows as objects keyed by column name, at most limit; the
// bool says there were more.
func collect(rows pgx.Rows, limit int) ([]map[string]any, bool, error) {
	defer rows.Close()
	fields := rows.FieldDescriptions()
	out := []map[string]any{}
	for rows.Next() {
		if len(out) == limit {
			return out, true, nil
		}
		vals, err := rows.Values()
		if err != nil {
			return nil, false, err
		}
		row := make(map[string]any, len(vals))
		for i, v := range vals {
			row[fields[i].Name] = jsonValue(v)
		}
		out = append(out, row)
	}
	return out, false, rows.Err()
}

// jsonValue makes a scanned value JSON-friendly: an exact decimal as a
// JSON number written as Postgres computed it.
func jsonValue(v any) any {
	if n, ok := v.(pgtype.Numeric); ok {
		if !n.Valid {
			return nil
		}
		b, err := n.MarshalJSON()
		if err != nil {
			return nil
		}
		return jsonNumber(b)
	}
	return v
}

// result is a tool's answer: the text rendering beside the structured
// rows.
func result(title string, cols []string, ans Answer) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: render(title, cols, ans)}}}
}

// shownRows is how many rows the text rendering shows; the structured
// output has them all.
const shownRows = 20

// render is a short text rendering of ans: a title, then one line per row
// (the first shownRows) as column=value pairs in cols' order.
func render(title string, cols []string, ans Answer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d row(s)", title, len(ans.Rows))
	if ans.Note != "" {
		fmt.Fprintf(&b, " (%s)", ans.Note)
	}
	b.WriteString("\n")
	for i, r := range ans.Rows {
		if i == shownRows {
			fmt.Fprintf(&b, "... %d more row(s) in the structured output\n", len(ans.Rows)-shownRows)
			break
		}
		var parts []string
		for _, c := range cols {
			if v, ok := r[c]; ok && v != nil {
				parts = append(parts, fmt.Sprintf("%s=%v", c, text(v)))
			}
		}
		b.WriteString("- " + strings.Join(parts, ", ") + "\n")
	}
	if ans.Truncated {
		fmt.Fprintf(&b, "The answer was cut at %d rows: narrow it (fewer accounts, a shorter span, a limit).\n", len(ans.Rows))
	}
	return b.String()
}
