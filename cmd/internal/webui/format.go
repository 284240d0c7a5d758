package webui

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/adsync/adsync/sync/store"
)

type bytesBuffer = bytes.Buffer

// formatInt writes n with thousands separators: 1234567 as 1,234,567.
func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var b []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

// formatMicros writes an amount of micro units in units, to the cent:
// 1234567891 as 1,234.57.
func formatMicros(v int64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	cents := (v + 5000) / 10000
	return fmt.Sprintf("%s%s.%02d", sign, formatInt(cents/100), cents%100)
}

// formatTime shows an instant in UTC, as adsync status does.
func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") }

// runDuration is how long a run took, or "running".
func runDuration(r store.RunSummary) string {
	if r.FinishedAt == nil {
		return "running"
	}
	return r.FinishedAt.Sub(r.StartedAt).Round(time.Millisecond).String()
}
