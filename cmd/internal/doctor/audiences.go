package doctor

import (
	"context"
	"fmt"

	"github.com/adsync/adsync/sync/audience"
	"github.com/jackc/pgx/v5/pgxpool"
)

// checkAudiences checks that each configured audience's source can be read
// (audience.CheckDefinition), sending and recording nothing.
func (d doctor) checkAudiences(ctx context.Context, pool *pgxpool.Pool) []check {
	var out []check
	defs := d.Config.Definitions()
	for i, c := range d.Config.Audiences {
		def := defs[c.Name]
		ch := check{name: "audience " + c.Name}
		field := fmt.Sprintf("audiences[%d].source.file", i)
		if def.Query != "" {
			field = fmt.Sprintf("audiences[%d].source.query", i)
		}
		if def.Query != "" && def.SourceURL == "" && pool == nil {
			ch.status, ch.found = statusSkip, "its query reads adsync's database, which failed its check"
			out = append(out, ch)
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		err := audience.CheckDefinition(cctx, pool, def)
		cancel()
		if err != nil {
			ch.status, ch.found = statusFail, err.Error()
			ch.todo = "correct " + field + " (from " + d.Config.Origin(fmt.Sprintf("audiences[%d]", i)) + ")"
			out = append(out, ch)
			continue
		}
		ch.status, ch.found = statusOK, def.SourceKind()+" source can be read"+createdNote(ctx, pool, def)
		out = append(out, ch)
	}
	return out
}

// createdNote says, for an audience with create:, whether adsync created
// it yet.
func createdNote(ctx context.Context, pool *pgxpool.Pool, def audience.Definition) string {
	if def.Create == "" || pool == nil {
		return ""
	}
	id, err := audience.CreatedID(ctx, pool, def.AccountID, def.Create)
	switch {
	case err != nil:
		return ""
	case id == "":
		return fmt.Sprintf("; the audience %q is created on the first run", def.Create)
	}
	return fmt.Sprintf("; adsync created the audience %q: %s", def.Create, id)
}
