package report

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // account time zones must resolve on machines without a zoneinfo database

	"github.com/jackc/pgx/v5"
)

// Groupings of a read.
const (
	ByTotal = "total" // one row per entity over the span
	ByDay   = "day"   // one row per entity and day
)

// DefaultDays is how many complete days a read covers when no span is
// given.
const DefaultDays = 7

// Request is what a read asks for. Placements are summed: the relations
// keep them apart.
type Request struct {
	Level Level
	// Accounts limit the read (empty: every synced account); an id not
	// synced is an input error.
	Accounts []string
	// Since and Until are account-local dates, inclusive (UTC midnights;
	// zero: Until is each account's last complete day at Now, Since is
	// Days-1 days before Until).
	Since, Until time.Time
	// Days is the default span's length (0: DefaultDays).
	Days int
	// By is ByTotal (default) or ByDay.
	By string
	// Now is the clock the default span is taken from.
	Now time.Time
	// Totals adds a total row per currency.
	Totals bool
	// Segment, when set, reads the level's relation by that segment
	// (report_<level>_by_<segment>_daily): a row per segment value too.
	Segment *Segment
	// EntityIDs limit the read to these ids of the level (account ids at
	// the account level); empty: every entity.
	EntityIDs []string
	// OrderBy, a metric column, orders the rows by it, largest first
	// (after the day when by day); "": largest spend first within an
	// account.
	OrderBy string
	// Limit caps the rows (0: no cap); not with Totals.
	Limit int
}

// Querier runs a query: a pool, a connection or a transaction (the MCP
// server reads in a read-only one).
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// relation is the relation the request reads.
func (req Request) relation() Relation { return Relation{Level: req.Level, Segment: req.Segment} }

// Span is one account's days, inclusive.
type Span struct {
	AccountID    string
	Since, Until time.Time
}

// Result is what a read returns: each value as Postgres writes it (exact
// decimals), nil for NULL.
type Result struct {
	Columns []string
	Rows    [][]*string
	// Totals are the per-currency total rows (Request.Totals), with the
	// same columns: the entity's are NULL.
	Totals [][]*string
	// Spans are the days read per account.
	Spans []Span
}

// Value is row's value of column name (nil when NULL or not a column).
func (r *Result) Value(row []*string, name string) *string {
	if i := slices.Index(r.Columns, name); i >= 0 {
		return row[i]
	}
	return nil
}

// Read sums the level's daily relation over each account's span, by entity
// (and day), largest spend first within an account (and day).
func Read(ctx context.Context, pool Querier, req Request) (*Result, error) {
	if req.OrderBy != "" && !slices.Contains(MetricColumns(), req.OrderBy) {
		return nil, fmt.Errorf("%w: order by %q: want one of %s", ErrInput, req.OrderBy, strings.Join(MetricColumns(), ", "))
	}
	spans, err := spans(ctx, pool, req)
	if err != nil {
		return nil, err
	}
	res := &Result{Columns: readColumns(req), Spans: spans}
	if len(spans) == 0 {
		return res, nil
	}
	args := append(readArgs(spans), req.EntityIDs, req.Limit)
	rows, err := pool.Query(ctx, readSQL(req), args...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", req.relation().Name(), err)
	}
	defer rows.Close()
	for rows.Next() {
		var total bool
		vals := make([]*string, len(res.Columns))
		dest := []any{&total}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("reading %s: %w", req.relation().Name(), err)
		}
		if total {
			res.Totals = append(res.Totals, vals)
		} else {
			res.Rows = append(res.Rows, vals)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", req.relation().Name(), err)
	}
	return res, nil
}

// groupColumns are what a read groups by: the day (by day), the account,
// the currency, the level's columns and the segment's.
func groupColumns(req Request) []string {
	var out []string
	if req.By == ByDay {
		out = append(out, "date")
	}
	out = append(out, "account_id", "account_name", "currency")
	for _, c := range req.Level.Columns {
		out = append(out, c.Name)
	}
	for _, c := range segmentColumns(req.Segment) {
		out = append(out, c.Name)
	}
	return out
}

// entityColumn is the column EntityIDs filter: the level's id, the
// account's at the account level.
func (req Request) entityColumn() string {
	if id := req.Level.IDColumn(); id != "" {
		return id
	}
	return "account_id"
}

// readColumns are a read's columns: the group's, then the metrics.
func readColumns(req Request) []string {
	return append(groupColumns(req), MetricColumns()...)
}

// readSQL sums the relation within the spans given as arrays ($1 account
// ids, $2 and $3 first and last days); $4 and $5 bound every span, so the
// planner reads ad_stats by its date index; $6 are the entity ids (NULL:
// all), $7 the row cap (0: none). Every value is text.
func readSQL(req Request) string {
	group := groupColumns(req)
	sel := []string{"GROUPING(r.account_id) = 1"}
	for _, g := range group {
		sel = append(sel, "r."+g+"::text")
	}
	orderBy := ""
	for _, m := range metricSQL(func(c string) string { return "sum(r." + reportName(c) + ")::bigint" }) {
		sel = append(sel, "("+m.SQL+")::text")
		if m.Name == req.OrderBy {
			orderBy = "(" + m.SQL + ") DESC NULLS LAST"
		}
	}
	keys := make([]string, len(group))
	for i, g := range group {
		keys[i] = "r." + g
	}
	groupBy := strings.Join(keys, ", ")
	if req.Totals {
		groupBy = fmt.Sprintf("GROUPING SETS ((%s), (r.currency))", groupBy)
	}
	order := []string{"GROUPING(r.account_id)"}
	if req.By == ByDay {
		order = append(order, "r.date")
	}
	if orderBy != "" {
		order = append(order, orderBy)
	}
	order = append(order, "r.account_id", "sum(r.spend_micro) DESC NULLS LAST")
	if id := req.Level.IDColumn(); id != "" {
		order = append(order, "r."+id)
	}
	order = append(order, "r.currency")
	for _, c := range segmentColumns(req.Segment) {
		order = append(order, "r."+c.Name)
	}
	return fmt.Sprintf(`WITH span AS (SELECT * FROM unnest($1::text[], $2::date[], $3::date[]) AS s(account_id, since, until))
SELECT %s
FROM %s r
JOIN span ON span.account_id = r.account_id AND r.date BETWEEN span.since AND span.until
WHERE r.account_id = ANY($1::text[]) AND r.date >= $4::date AND r.date <= $5::date
    AND ($6::text[] IS NULL OR r.%s = ANY($6::text[]))
GROUP BY %s
ORDER BY %s
LIMIT NULLIF($7::int, 0)`, strings.Join(sel, ", "), req.relation().Name(), req.entityColumn(), groupBy, strings.Join(order, ", "))
}

// readArgs are readSQL's arguments for spans (at least one).
func readArgs(spans []Span) []any {
	ids := make([]string, len(spans))
	since, until := make([]string, len(spans)), make([]string, len(spans))
	lo, hi := spans[0].Since, spans[0].Until
	for i, s := range spans {
		ids[i], since[i], until[i] = s.AccountID, s.Since.Format(time.DateOnly), s.Until.Format(time.DateOnly)
		lo, hi = minTime(lo, s.Since), maxTime(hi, s.Until)
	}
	return []any{ids, since, until, lo.Format(time.DateOnly), hi.Format(time.DateOnly)}
}

// spans are the days to read per account: the request's, or each
// account's last complete days in its own time zone.
func spans(ctx context.Context, pool Querier, req Request) ([]Span, error) {
	if !req.Since.IsZero() && !req.Until.IsZero() && req.Until.Before(req.Since) {
		return nil, fmt.Errorf("%w: the span ends (%s) before it starts (%s)", ErrInput,
			req.Until.Format(time.DateOnly), req.Since.Format(time.DateOnly))
	}
	days := req.Days
	if days <= 0 {
		days = DefaultDays
	}
	accts, err := accounts(ctx, pool, req.Accounts)
	if err != nil {
		return nil, err
	}
	var out []Span
	for _, a := range accts {
		s := Span{AccountID: a.id, Since: req.Since, Until: req.Until}
		if s.Until.IsZero() {
			y, m, d := req.Now.In(a.zone).Date()
			s.Until = time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
		}
		if s.Since.IsZero() {
			s.Since = s.Until.AddDate(0, 0, 1-days)
		}
		if !s.Until.Before(s.Since) {
			out = append(out, s)
		}
	}
	return out, nil
}

type account struct {
	id   string
	zone *time.Location
}

// accounts are the synced accounts named (all when none are), with their
// time zones; an id not synced is an input error.
func accounts(ctx context.Context, pool Querier, ids []string) ([]account, error) {
	rows, err := pool.Query(ctx, `SELECT id, coalesce(timezone, '') FROM accounts ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("reading the accounts: %w", err)
	}
	type rec struct{ ID, Zone string }
	all, err := pgx.CollectRows(rows, pgx.RowToStructByPos[rec])
	if err != nil {
		return nil, fmt.Errorf("reading the accounts: %w", err)
	}
	var out []account
	for _, r := range all {
		if len(ids) > 0 && !slices.Contains(ids, r.ID) {
			continue
		}
		loc, err := time.LoadLocation(r.Zone)
		if err != nil {
			return nil, fmt.Errorf("account %s: time zone %q: %w", r.ID, r.Zone, err)
		}
		out = append(out, account{id: r.ID, zone: loc})
	}
	for _, id := range ids {
		if !slices.ContainsFunc(out, func(a account) bool { return a.id == id }) {
			return nil, fmt.Errorf("%w: account %q is not among the synced accounts (adsync sync stores them)", ErrInput, id)
		}
	}
	return out, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
