package jobs

import (
	"testing"
	"time"
)

func TestSpanWordsSaysWholeDaysAsDays(t *testing.T) {
	for d, want := range map[time.Duration]string{
		14 * 24 * time.Hour: "14 days",
		24 * time.Hour:      "day",
		36 * time.Hour:      "36h0m0s",
	} {
		if got := spanWords(d); got != want {
			t.Errorf("spanWords(%v) = %q, want %q", d, got, want)
		}
	}
}
