package webui

import (
	"time"

	"github.com/adsync/adsync/sync/store"
)

// ChartDays is how many days the chart shows, today included.
const ChartDays = 30

// Chart geometry in SVG user units; the SVG scales to the page's width.
const (
	chartWidth  = 600
	chartHeight = 120
	chartTop    = 16 // room for the series' maximum
	chartBottom = 16 // room for the first and last day
)

// series is one of the chart's panels: a bar a day.
type series struct {
	Title string
	Class string
	Max   int64
	// MaxLabel is Max as the panel writes it.
	MaxLabel string
	Bars     []bar
	Width    int
	Height   int
	// First and Last are the first and last day, as labels.
	First, Last string
	Baseline    float64
}

// bar is one day of a series; Y and H are in SVG units.
type bar struct {
	Day         string
	Value       int64
	X, Y, W, H  float64
	LabelY      float64
	Description string
}

// daySeries lays out one value a day as a panel; format writes a value
// (the maximum, and each bar's description followed by unit).
func daySeries(title, class, unit string, days []time.Time, values []int64, format func(int64) string) series {
	s := series{Title: title, Class: class, Width: chartWidth, Height: chartHeight, Baseline: chartHeight - chartBottom}
	for _, v := range values {
		s.Max = max(s.Max, v)
	}
	s.MaxLabel = format(s.Max)
	plot := float64(chartHeight - chartTop - chartBottom)
	slot := float64(chartWidth) / float64(max(len(days), 1))
	for i, d := range days {
		v := values[i]
		h := 0.0
		if s.Max > 0 {
			h = plot * float64(v) / float64(s.Max)
		}
		day := d.Format("2006-01-02")
		s.Bars = append(s.Bars, bar{Day: day, Value: v, X: float64(i)*slot + 1, W: slot - 2,
			Y: s.Baseline - h, H: h, Description: day + ": " + format(v) + " " + unit})
	}
	if len(days) > 0 {
		s.First, s.Last = days[0].Format("Jan 2"), days[len(days)-1].Format("Jan 2")
	}
	return s
}

// charts lays out the days' activity as one panel a series.
func charts(days []store.DayActivity) []series {
	defs := []struct {
		title, class, unit string
		value              func(store.DayActivity) int64
	}{
		{"Rows synced", "synced", "rows synced", func(d store.DayActivity) int64 { return d.RowsSynced }},
		{"Users uploaded", "uploaded", "users uploaded", func(d store.DayActivity) int64 { return d.UsersUploaded }},
		{"Rows exported", "exported", "rows exported", func(d store.DayActivity) int64 { return d.RowsExported }},
		{"Failed runs", "failed", "failed runs", func(d store.DayActivity) int64 { return d.FailedRuns }},
	}
	dates := make([]time.Time, len(days))
	for i, d := range days {
		dates[i] = d.Day
	}
	out := make([]series, 0, len(defs))
	for _, def := range defs {
		values := make([]int64, len(days))
		for i, d := range days {
			values[i] = def.value(d)
		}
		out = append(out, daySeries(def.title, def.class, def.unit, dates, values, formatInt))
	}
	return out
}
