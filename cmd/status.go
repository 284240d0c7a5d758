package adsynccmd

import (
	"strings"

	"github.com/adsync/adsync/jobs"
	"github.com/spf13/cobra"
)

func (a *app) statusCommand() *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show recent runs with counts and outcomes, queue depth by state, and failed, cancelled and discarded jobs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return usageError("status: --limit %d: must be at least 1", limit)
			}
			pool, err := a.connect(cmd.Context())
			if err != nil {
				return err
			}
			return jobs.WriteStatus(cmd.Context(), pool, limit, a.stdout)
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 10, "how many recent runs and failed, cancelled or discarded jobs to show (at least 1)")
	return cmd
}

// oneLine is an error as one line of at most 200 bytes, for a listing.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
