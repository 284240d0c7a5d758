package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// writeCSV writes a header and one line per row, exact values, NULL as an
// empty field.
func writeCSV(w io.Writer, res *Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(res.Columns); err != nil {
		return err
	}
	rec := make([]string, len(res.Columns))
	for _, row := range res.Rows {
		for i, v := range row {
			rec[i] = ""
			if v != nil {
				rec[i] = *v
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeJSON writes an array of objects, one a line, keys in column order:
// metrics as JSON numbers written exactly as Postgres computed them.
func writeJSON(w io.Writer, res *Result) error {
	metrics := MetricColumns()
	var b strings.Builder
	b.WriteString("[")
	for r, row := range res.Rows {
		if r > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n{")
		for i, v := range row {
			if i > 0 {
				b.WriteString(",")
			}
			k, _ := json.Marshal(res.Columns[i])
			b.Write(k)
			b.WriteString(":")
			switch {
			case v == nil:
				b.WriteString("null")
			case slices.Contains(metrics, res.Columns[i]):
				b.WriteString(*v)
			default:
				s, _ := json.Marshal(*v)
				b.Write(s)
			}
		}
		b.WriteString("}")
	}
	b.WriteString("\n]\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// tableMetrics are the metrics a table shows, currency before spend.
var tableMetrics = []string{"impressions", "engagements", "clicks", "url_clicks", "currency", "spend", "ctr", "cpc", "cpm"}

// tableColumns are the columns a table shows: the day, the account (its
// name at the account level), the level's id and names (a promoted post's
// post too), then tableMetrics.
func tableColumns(req Request) []string {
	var out []string
	if req.By == ByDay {
		out = append(out, "date")
	}
	out = append(out, "account_id")
	if req.Level.IDColumn() == "" {
		out = append(out, "account_name")
	}
	for _, c := range req.Level.Columns {
		if c.Name == req.Level.IDColumn() || c.Name == "post_id" || strings.HasSuffix(c.Name, "_name") {
			out = append(out, c.Name)
		}
	}
	return append(out, tableMetrics...)
}

// writeTable writes the rows for a person: the span, aligned columns,
// rounded money and ratios, and a total line per currency.
func writeTable(w io.Writer, req Request, res *Result) error {
	fmt.Fprintf(w, "%s report, %s\n", strings.ReplaceAll(req.Level.Name, "_", " "), describeSpans(res.Spans))
	if len(res.Rows) == 0 {
		_, err := fmt.Fprintln(w, "no delivery in the span (adsync stats sync pulls the analytics)")
		return err
	}
	cols := tableColumns(req)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = strings.ToUpper(strings.ReplaceAll(c, "_", " "))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	line := func(row []*string, total bool) {
		cells := make([]string, len(cols))
		for i, c := range cols {
			switch v := res.Value(row, c); {
			case total && i == 0:
				cells[i] = "TOTAL"
			case total && v == nil && !slices.Contains(tableMetrics, c):
				// A total has no entity: its columns stay blank.
			default:
				cells[i] = cell(c, v)
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	for _, row := range res.Rows {
		line(row, false)
	}
	for _, row := range res.Totals {
		line(row, true)
	}
	return tw.Flush()
}

// describeSpans says which days a read covered.
func describeSpans(spans []Span) string {
	days := func(s Span) string {
		return s.Since.Format(time.DateOnly) + " to " + s.Until.Format(time.DateOnly)
	}
	if len(spans) == 0 {
		return "no synced account"
	}
	same := true
	for _, s := range spans[1:] {
		same = same && s.Since.Equal(spans[0].Since) && s.Until.Equal(spans[0].Until)
	}
	if same {
		return days(spans[0]) + " (account-local days)"
	}
	parts := make([]string, len(spans))
	for i, s := range spans {
		parts[i] = s.AccountID + " " + days(s)
	}
	return "account-local days: " + strings.Join(parts, "; ")
}

// cell formats one value for a person: counts with thousands separators,
// money and cost ratios to the cent, ctr as a percentage, long names cut.
func cell(col string, v *string) string {
	if v == nil {
		return "-"
	}
	switch col {
	case "spend", "cpc", "cpm":
		return decimal(*v, 1, 2)
	case "ctr":
		return decimal(*v, 100, 2) + "%"
	}
	if slices.Contains(leadMetrics, col) {
		return decimal(*v, 1, 0)
	}
	if r := []rune(*v); len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return *v
}

// decimal writes the decimal text s times scale with places decimals
// (rounded half away from zero) and thousands separators.
func decimal(s string, scale int64, places int) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	out := r.Mul(r, big.NewRat(scale, 1)).FloatString(places)
	neg := strings.HasPrefix(out, "-")
	out = strings.TrimPrefix(out, "-")
	whole, frac, _ := strings.Cut(out, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
