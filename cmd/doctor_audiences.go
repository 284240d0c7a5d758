package adsynccmd

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/adsync/adsync/sync/audience"
	"github.com/jackc/pgx/v5/pgxpool"
)

// printAudiences lists the configured audiences, source URLs masked.
func (a *app) printAudiences() error {
	if len(a.cfg.Audiences) == 0 {
		return nil
	}
	fmt.Fprintln(a.stdout, "\nAUDIENCES")
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tACCOUNT\tAUDIENCE\tSOURCE\tMODE\tSCHEDULE\tFROM")
	defs := a.cfg.Definitions()
	for i, c := range a.cfg.Effective().Masked().Audiences {
		d := defs[c.Name]
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
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Account, d.Target(), source, mode, schedule,
			a.cfg.Origin(fmt.Sprintf("audiences[%d]", i)))
	}
	return w.Flush()
}

// checkAudiences checks that each configured audience's source can be read,
// sending and recording nothing.
func (a *app) checkAudiences(ctx context.Context, pool *pgxpool.Pool) []doctorCheck {
	var out []doctorCheck
	defs := a.cfg.Definitions()
	for i, c := range a.cfg.Audiences {
		d := defs[c.Name]
		check := doctorCheck{name: "audience " + c.Name}
		field := fmt.Sprintf("audiences[%d].source.file", i)
		if d.Query != "" {
			field = fmt.Sprintf("audiences[%d].source.query", i)
		}
		if d.Query != "" && d.SourceURL == "" && pool == nil {
			check.status, check.found = checkSkip, "its query reads adsync's database, which failed its check"
			out = append(out, check)
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
		err := audience.CheckDefinition(cctx, pool, d)
		cancel()
		if err != nil {
			check.status, check.found = checkFail, err.Error()
			check.todo = "correct " + field + " (from " + a.cfg.Origin(fmt.Sprintf("audiences[%d]", i)) + ")"
			out = append(out, check)
			continue
		}
		check.status, check.found = checkOK, d.SourceKind()+" source can be read"+a.createdNote(ctx, pool, d)
		out = append(out, check)
	}
	return out
}

// createdNote says, for an audience with create:, whether adsync created
// it yet.
func (a *app) createdNote(ctx context.Context, pool *pgxpool.Pool, d audience.Definition) string {
	if d.Create == "" || pool == nil {
		return ""
	}
	id, err := audience.CreatedID(ctx, pool, d.AccountID, d.Create)
	switch {
	case err != nil:
		return ""
	case id == "":
		return fmt.Sprintf("; the audience %q is created on the first run", d.Create)
	}
	return fmt.Sprintf("; adsync created the audience %q: %s", d.Create, id)
}
