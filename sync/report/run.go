package report

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Output formats.
const (
	FormatTable = "table"
	FormatCSV   = "csv"
	FormatJSON  = "json"
)

// Options are adsync report's arguments as given on its command line.
type Options struct {
	Level    string
	Accounts []string
	// Since and Until are dates (YYYY-MM-DD), "" for the default span.
	Since, Until string
	By           string
	// Format is table, csv or json; "" is table on a terminal, csv
	// otherwise.
	Format   string
	Terminal bool
	Now      time.Time
}

// Run answers adsync report: it checks o, reads the level's report and
// writes it to w. Bad input is an ErrInput error naming what is allowed.
func Run(ctx context.Context, pool *pgxpool.Pool, o Options, w io.Writer) error {
	req, format, err := o.request()
	if err != nil {
		return err
	}
	res, err := Read(ctx, pool, req)
	if err != nil {
		return err
	}
	switch format {
	case FormatCSV:
		return writeCSV(w, res)
	case FormatJSON:
		return writeJSON(w, res)
	}
	return writeTable(w, req, res)
}

// request checks the options and turns them into a read and a format.
func (o Options) request() (Request, string, error) {
	lvl, err := LookupLevel(strings.ToLower(strings.TrimSpace(o.Level)))
	if err != nil {
		return Request{}, "", err
	}
	req := Request{Level: lvl, Accounts: o.Accounts, By: strings.ToLower(o.By), Now: o.Now}
	if req.By == "" {
		req.By = ByTotal
	}
	if req.By != ByTotal && req.By != ByDay {
		return req, "", fmt.Errorf("%w: --by %q: want total or day", ErrInput, o.By)
	}
	if req.Since, err = parseDate("--since", o.Since); err != nil {
		return req, "", err
	}
	if req.Until, err = parseDate("--until", o.Until); err != nil {
		return req, "", err
	}
	if !req.Since.IsZero() && !req.Until.IsZero() && req.Until.Before(req.Since) {
		return req, "", fmt.Errorf("%w: --until %s is before --since %s: the span ends before it starts", ErrInput, o.Until, o.Since)
	}
	format := strings.ToLower(o.Format)
	switch format {
	case "":
		format = FormatCSV
		if o.Terminal {
			format = FormatTable
		}
	case FormatTable, FormatCSV, FormatJSON:
	default:
		return req, "", fmt.Errorf("%w: --format %q: want table, csv or json", ErrInput, o.Format)
	}
	req.Totals = format == FormatTable
	return req, format, nil
}

// parseDate reads a flag's date ("" is the zero time).
func parseDate(flag, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, strings.TrimSpace(v))
	if err != nil {
		return t, fmt.Errorf("%w: %s %q: want a date as YYYY-MM-DD (an account-local day)", ErrInput, flag, v)
	}
	return t, nil
}
