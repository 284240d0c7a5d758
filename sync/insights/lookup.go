package insights

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Lookup fetches set from start to end once (adsync insights keywords),
// stores it as one recorded run, as the scheduled pipeline does, and
// writes a table per stored window and request to w, the windows stored
// before a failure included.
func Lookup(ctx context.Context, c *api.Client, pool *pgxpool.Pool, set KeywordSet, start, end time.Time, w io.Writer) error {
	r := &Runner{Client: c, Pool: pool}
	params := map[string]any{"sets": []string{set.Name}, "start": start, "end": end}
	rep, err := Recorded(ctx, pool, "manual", params, func(ctx context.Context) (Report, error) {
		return r.Run(ctx, []KeywordSet{set}, start, end)
	})
	rep.WriteTables(w)
	return err
}

// WriteTables writes one table per stored window and request, then the
// totals.
func (rep Report) WriteTables(w io.Writer) {
	for _, wr := range rep.Stored {
		for _, res := range wr.Results {
			fmt.Fprintf(w, "%s  %s to %s  %s", wr.Set.Name, wr.Window.Start.Format(time.RFC3339),
				wr.Window.End.Format(time.RFC3339), wr.Set.Granularity)
			if wr.Set.Location != "" {
				fmt.Fprintf(w, "  location %s", wr.Set.Location)
			}
			fmt.Fprintf(w, "\nkeywords: %s", strings.Join(res.Group.Keywords, ", "))
			if len(res.Group.NegativeKeywords) > 0 {
				fmt.Fprintf(w, "  negative: %s", strings.Join(res.Group.NegativeKeywords, ", "))
			}
			fmt.Fprintln(w)
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "BUCKET\tVOLUME\t")
			for _, b := range res.Buckets {
				fmt.Fprintf(tw, "%s\t%d\t\n", b.Start.Format(time.RFC3339), b.Volume)
			}
			_ = tw.Flush()
			fmt.Fprintf(w, "related keywords: %s\n\n", strings.Join(res.RelatedKeywords, ", "))
		}
	}
	fmt.Fprintf(w, "stored %d windows (%d requests, %d buckets)\n", rep.Windows, rep.Requests, rep.Buckets)
}
