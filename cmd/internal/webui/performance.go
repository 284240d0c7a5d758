package webui

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/adsync/adsync/sync/report"
	"github.com/adsync/adsync/sync/store"
)

// What the performance page shows: each account's last PerformanceDays
// complete days, and its TopN campaigns and line items by spend over its
// last TopDays complete days.
const (
	PerformanceDays = 30
	TopDays         = 7
	TopN            = 5
)

// performancePageData is what the performance page shows.
type performancePageData struct {
	Generated time.Time
	Accounts  []accountPerformance
}

// accountPerformance is one account's section: its charts and top lists.
type accountPerformance struct {
	report.Performance
	Charts                []series
	First, Last, TopSince string
}

func (s *Server) performancePage(w http.ResponseWriter, r *http.Request) {
	d, err := s.readPerformance(r.Context())
	if err != nil {
		http.Error(w, "reading the reports: "+store.Redact(err.Error()), http.StatusInternalServerError)
		return
	}
	render(w, "performance.html", d)
}

// readPerformance reads the reports and lays out each account's charts.
func (s *Server) readPerformance(ctx context.Context) (*performancePageData, error) {
	now := s.opts.Now()
	perf, err := report.ReadPerformance(ctx, s.opts.Pool, report.PerformanceRequest{Now: now, Days: PerformanceDays,
		TopDays: TopDays, Top: TopN})
	if err != nil {
		return nil, err
	}
	d := &performancePageData{Generated: now}
	for _, p := range perf {
		a := accountPerformance{Performance: p, TopSince: p.TopSince.Format(time.DateOnly)}
		dates := make([]time.Time, len(p.Days))
		spend, imps, clicks := make([]int64, len(p.Days)), make([]int64, len(p.Days)), make([]int64, len(p.Days))
		for i, day := range p.Days {
			dates[i], spend[i], imps[i], clicks[i] = day.Date, day.SpendMicro, day.Impressions, day.Clicks
		}
		if len(dates) > 0 {
			a.First, a.Last = dates[0].Format(time.DateOnly), dates[len(dates)-1].Format(time.DateOnly)
		}
		a.Charts = []series{
			daySeries(fmt.Sprintf("Spend (%s)", p.Currency), "spend", p.Currency, dates, spend, formatMicros),
			daySeries("Impressions", "impressions", "impressions", dates, imps, formatInt),
			daySeries("Clicks", "clicks", "clicks", dates, clicks, formatInt),
		}
		d.Accounts = append(d.Accounts, a)
	}
	return d, nil
}

// topList is a top table's data: its class, first column's title, the
// currency and the rows.
type topList struct {
	Class, Title, Currency string
	Rows                   []report.Top
}

func topTable(class, title, currency string, rows []report.Top) topList {
	return topList{Class: class, Title: title, Currency: currency, Rows: rows}
}
