package report

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Performance is what the worker's performance page shows of one account:
// its days, and its largest spenders of its last few days.
type Performance struct {
	AccountID, AccountName, Currency string
	// Days are the account's last complete days, oldest first, one a day
	// (zeros on a day without delivery).
	Days []DayTotals
	// TopCampaigns and TopLineItems spent the most over TopSince to the
	// last day, largest first.
	TopCampaigns, TopLineItems []Top
	TopSince                   time.Time
}

// DayTotals are one day of an account, placements summed.
type DayTotals struct {
	Date                            time.Time
	SpendMicro, Impressions, Clicks int64
}

// Top is one entity's totals over the top span.
type Top struct {
	ID, Name string
	// Spend is exact, in currency units.
	Spend                           string
	SpendMicro, Impressions, Clicks int64
}

// PerformanceRequest says what ReadPerformance reads.
type PerformanceRequest struct {
	Now time.Time
	// Days is how many complete days the daily totals cover, TopDays the
	// top lists, Top how long each list is.
	Days, TopDays, Top int
}

// ReadPerformance reads, for every account that delivered in its last
// r.Days complete days (in its own time zone), its daily spend,
// impressions and clicks, and its top campaigns and line items by spend
// over its last r.TopDays complete days; accounts in id order.
func ReadPerformance(ctx context.Context, pool *pgxpool.Pool, r PerformanceRequest) ([]Performance, error) {
	byAccount, order, err := dailyTotals(ctx, pool, r)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"campaign", "line_item"} {
		l, err := LookupLevel(name)
		if err != nil {
			return nil, err
		}
		res, err := Read(ctx, pool, Request{Level: l, Days: r.TopDays, Now: r.Now})
		if err != nil {
			return nil, err
		}
		for _, row := range res.Rows { // largest spend first within an account
			p := byAccount[text(res.Value(row, "account_id"))]
			if p == nil {
				continue
			}
			list := &p.TopCampaigns
			if name == "line_item" {
				list = &p.TopLineItems
			}
			if len(*list) < r.Top {
				*list = append(*list, Top{ID: text(res.Value(row, l.IDColumn())), Name: text(res.Value(row, name+"_name")),
					Spend: text(res.Value(row, "spend")), SpendMicro: integer(res.Value(row, spendMicro)),
					Impressions: integer(res.Value(row, "impressions")),
					Clicks:      integer(res.Value(row, "clicks"))})
			}
		}
	}
	out := make([]Performance, len(order))
	for i, id := range order {
		out[i] = *byAccount[id]
	}
	return out, nil
}

// dailyTotals reads the accounts' days: every day of each account's span,
// zeros where it did not deliver, for the accounts that delivered at all.
func dailyTotals(ctx context.Context, pool *pgxpool.Pool, r PerformanceRequest) (map[string]*Performance, []string, error) {
	res, err := Read(ctx, pool, Request{Level: Levels[0], By: ByDay, Days: r.Days, Now: r.Now})
	if err != nil {
		return nil, nil, err
	}
	spans := map[string]Span{}
	for _, s := range res.Spans {
		spans[s.AccountID] = s
	}
	byAccount := map[string]*Performance{}
	var order []string
	for _, row := range res.Rows {
		id := text(res.Value(row, "account_id"))
		p := byAccount[id]
		if p == nil {
			s := spans[id]
			p = &Performance{AccountID: id, AccountName: text(res.Value(row, "account_name")),
				Currency: text(res.Value(row, "currency")), TopSince: s.Until.AddDate(0, 0, 1-max(r.TopDays, 1))}
			for d := s.Since; !d.After(s.Until); d = d.AddDate(0, 0, 1) {
				p.Days = append(p.Days, DayTotals{Date: d})
			}
			byAccount[id] = p
			order = append(order, id)
		}
		date, err := time.Parse(time.DateOnly, text(res.Value(row, "date")))
		if err != nil {
			return nil, nil, err
		}
		if i := int(date.Sub(spans[id].Since).Hours() / 24); i >= 0 && i < len(p.Days) {
			p.Days[i] = DayTotals{Date: date, SpendMicro: integer(res.Value(row, spendMicro)),
				Impressions: integer(res.Value(row, "impressions")), Clicks: integer(res.Value(row, "clicks"))}
		}
	}
	slices.Sort(order)
	return byAccount, order, nil
}

func text(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}

// integer is a bigint's text as a number (0 for NULL).
func integer(v *string) int64 {
	if v == nil {
		return 0
	}
	n, _ := strconv.ParseInt(*v, 10, 64)
	return n
}
