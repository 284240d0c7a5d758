package doctor

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
)

// printConfigSources lists every setting, masked, with its origin. With
// no access token configured, one stored by adsync auth login in pool's
// database is shown as such.
func (d doctor) printConfigSources(ctx context.Context, pool *pgxpool.Pool) error {
	entries, err := d.Config.Entries()
	if err != nil {
		return err
	}
	if stored := d.storedTokenLabel(ctx, pool); stored != "" {
		for i, e := range entries {
			if (e.Key == "api.access_token" || e.Key == "api.access_secret") && e.Origin == "default" {
				entries[i].Value, entries[i].Origin = stored, "adsync auth login (database)"
			}
		}
	}
	fmt.Fprintln(d.Out, "CONFIGURATION")
	w := tabwriter.NewWriter(d.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KEY\tVALUE\tFROM")
	for _, e := range entries {
		v := e.Value
		if v == "" {
			v = "(unset)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", e.Key, v, e.Origin)
	}
	return w.Flush()
}

// storedTokenLabel is "stored: @screen_name" when no access token is
// configured and auth login stored one in pool's database; else "".
func (d doctor) storedTokenLabel(ctx context.Context, pool *pgxpool.Pool) string {
	c := d.Config.API
	if pool == nil || c.AccessToken != "" || c.AccessSecret != "" || d.Config.SecretKey == "" {
		return ""
	}
	creds := api.Credentials{ConsumerKey: c.ConsumerKey, ConsumerSecret: c.ConsumerSecret}
	tok, err := api.PGUserTokenStore{Pool: pool, SecretKey: d.Config.SecretKey}.Current(ctx, creds)
	if err != nil {
		return ""
	}
	if tok.ScreenName == "" {
		return "stored: user " + tok.UserID
	}
	return "stored: @" + strings.TrimPrefix(tok.ScreenName, "@")
}

// printAudiences lists the configured audiences, source URLs masked.
func (d doctor) printAudiences() error {
	cfg := d.Config
	if len(cfg.Audiences) == 0 {
		return nil
	}
	fmt.Fprintln(d.Out, "\nAUDIENCES")
	w := tabwriter.NewWriter(d.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tACCOUNT\tAUDIENCE\tSOURCE\tMODE\tSCHEDULE\tFROM")
	defs := cfg.Definitions()
	for i, c := range cfg.Effective().Masked().Audiences {
		def := defs[c.Name]
		source := "file " + c.Source.File
		if c.Source.Query != "" {
			source = "query on adsync's database"
			if c.Source.SourceURL != "" {
				source = "query on " + c.Source.SourceURL
			}
		}
		mode := c.Mode
		if c.MaxDelete != "" {
			mode += ", max_delete " + string(c.MaxDelete)
		}
		schedule := c.Schedule
		if schedule == "" {
			schedule = "(none: adsync audience sync " + c.Name + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Account, def.Target(), source, mode, schedule,
			cfg.Origin(fmt.Sprintf("audiences[%d]", i)))
	}
	return w.Flush()
}
