package demo

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adsync/adsync/fixtures"
)

// AnchorFile records the hour the demo's shared fake generates its data at
// (see Anchor).
var AnchorFile = filepath.Join(FakeDir, "anchor")

// anchorFor is how long the demo's fakes keep one anchor.
const anchorFor = 24 * time.Hour

// Anchor is the hour the demo's shared fake anchors its generated data to:
// ADSYNC_FAKE_ANCHOR when set, else the hour recorded in file while it is
// less than a day old, else the current hour, recorded. Every fake started
// for the demo within a day so holds the same data, and a second pass an
// hour later finds its records unchanged; after a day the data moves to the
// present (one pass then sees every record changed), so the analytics'
// trailing days stay covered.
func Anchor(file string, now time.Time) (time.Time, error) {
	if t, err := fixtures.AnchorFromEnv(); err != nil || !t.IsZero() {
		return t, err
	}
	if b, err := os.ReadFile(file); err == nil {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
		if age := now.Sub(t); err == nil && age >= 0 && age < anchorFor {
			return t.UTC(), nil
		}
	}
	t := now.UTC().Truncate(time.Hour)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return time.Time{}, err
	}
	return t, os.WriteFile(file, []byte(t.Format(time.RFC3339)+"\n"), 0o644)
}
