package adsynccmd

import (
	"errors"
	"os"
	"strings"

	"github.com/adsync/adsync/sync/report"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func (a *app) reportCommand() *cobra.Command {
	var o report.Options
	cmd := &cobra.Command{
		Use:   "report LEVEL",
		Short: "Print what each account, funding instrument, campaign, line item or promoted post delivered and spent",
		Long: `Print a daily report from Postgres (the report_<level>_daily views over the pulled
analytics; adsync stats sync fills them): impressions, engagements, clicks, url_clicks,
spend in the currency's units (exact), ctr, cpc and cpm, with the account's and the
entity's names and the currency. Placements are summed.

LEVEL is one of: ` + strings.Join(report.LevelNames(), ", ") + `.

--since and --until are account-local days (YYYY-MM-DD), both included; by default each
account's last 7 complete days in its own time zone. --by total (default) prints one row
per entity, --by day one per entity and day. --format table (default on a terminal) aligns
the columns, rounds money to the cent and adds a total line per currency; csv (default
otherwise) and json carry every metric, exactly. An unknown level, a bad date or a span
that ends before it starts exits 2.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Level = args[0]
			o.Now = a.clock()
			if f, ok := a.stdout.(*os.File); ok {
				o.Terminal = term.IsTerminal(int(f.Fd()))
			}
			pool, err := a.connect(cmd.Context())
			if err != nil {
				return err
			}
			err = report.Run(cmd.Context(), pool, o, a.stdout)
			if errors.Is(err, report.ErrInput) {
				return usageError("%w", err)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Accounts, "account", nil, "an account id (repeat for more; default: every synced account)")
	f.StringVar(&o.Since, "since", "", "first account-local day, YYYY-MM-DD (default: 7 days before --until)")
	f.StringVar(&o.Until, "until", "", "last account-local day, YYYY-MM-DD, included (default: each account's yesterday)")
	f.StringVar(&o.By, "by", report.ByTotal, "total (one row per entity) or day (one per entity and day)")
	f.StringVar(&o.Format, "format", "", "table, csv or json (default: table on a terminal, csv otherwise)")
	return cmd
}
