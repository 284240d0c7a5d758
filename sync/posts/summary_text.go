package posts

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the summary for people: the counts, then the ids the
// service could not find.
func (s Summary) WriteText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "requested\t%d\nfound\t%d\nnot found\t%d\nmedia\t%d\nusers\t%d\n", s.Requested, s.Found, s.NotFound, s.Media, s.Users)
	_ = tw.Flush()
	if len(s.NotFoundIDs) > 0 {
		fmt.Fprintf(w, "not found: %s\n", strings.Join(s.NotFoundIDs, ", "))
	}
}
