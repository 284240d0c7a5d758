package audience

import (
	"fmt"
	"io"
)

// WritePlan writes a new plan for people, before anything of it is
// recorded or sent: the invalid rows left out, the rows repeating a user,
// then what it sends (users, each once) to audienceID in mode with op.
func WritePlan(w io.Writer, audienceID, mode, op string, res *PlanResult) {
	for _, e := range res.Report.InvalidRows {
		fmt.Fprintf(w, "invalid: %s: %s (not uploaded)\n", res.Report.Where(e.Line), e.Reason)
	}
	if n := res.Report.RowsInvalid - len(res.Report.InvalidRows); n > 0 {
		fmt.Fprintf(w, "invalid: %d more rows not listed\n", n)
	}
	if res.Report.RowsDuplicate > 0 {
		fmt.Fprintln(w, res.Report.DuplicatesLine())
	}
	s := res.Summary
	switch {
	case res.Outcome == Refused, res.Outcome == Empty:
		// No plan was made of the source read: what follows says why.
	case mode == ModeReplace:
		width := len(fmt.Sprint(max(s.Adds, s.Deletes, s.Unchanged)))
		fmt.Fprintf(w, "plan for audience %s (replace):\n", audienceID)
		fmt.Fprintf(w, "  add:       %*d users\n", width, s.Adds)
		fmt.Fprintf(w, "  delete:    %*d of %d known identifiers\n", width, s.Deletes, s.Known)
		fmt.Fprintf(w, "  unchanged: %*d users\n", width, s.Unchanged)
	case op == OperationDelete:
		fmt.Fprintf(w, "plan for audience %s (delete):\n  delete: %d users\n", audienceID, s.Deletes)
	default:
		fmt.Fprintf(w, "plan for audience %s (add):\n  add: %d users\n", audienceID, s.Adds)
	}
}

// WriteSyncResult says what a run of def did, after its plan.
func WriteSyncResult(w io.Writer, def Definition, res *SyncResult, dryRun bool) {
	if res.Created {
		fmt.Fprintf(w, "created custom audience %s (%q) for audience %s\n", res.AudienceID, def.Create, def.Name)
	}
	p := res.Plan
	switch {
	case p.Outcome == Previewed, p.Outcome == Skipped && dryRun:
		fmt.Fprintln(w, "dry run: nothing recorded, created or sent")
	case p.Outcome == Resumed && dryRun:
		fmt.Fprintf(w, "dry run: upload %d of the same source is unfinished; the same command without --dry-run resumes it\n", p.Upload.ID)
	case p.Outcome == Skipped:
		fmt.Fprintf(w, "run %d: nothing to send: the same source was uploaded to audience %s as upload %d\n", res.RunID, res.AudienceID, p.Upload.ID)
	case p.Outcome == Resumed:
		fmt.Fprintf(w, "run %d: resuming upload %d of the same source: batches already done are not sent again\n", res.RunID, p.Upload.ID)
	case p.Batches == 0:
		fmt.Fprintf(w, "run %d: nothing to send: audience %s already holds the source\n", res.RunID, res.AudienceID)
	default:
		fmt.Fprintf(w, "run %d: upload %d: %d rows read, %d invalid, %d adds and %d deletes in %d batches to audience %s\n",
			res.RunID, p.Upload.ID, p.Upload.RowsRead, p.Upload.RowsInvalid, p.Summary.Adds, p.Summary.Deletes, p.Batches, res.AudienceID)
	}
}

// WriteUploadReport writes a finished upload's report: its rows, batches,
// retries, and the adds and deletes sent and accepted.
func WriteUploadReport(w io.Writer, up *Upload, p Progress) {
	fmt.Fprintf(w, "upload %d: %s\nrows read: %d\nrows invalid: %d\nbatches: %d (%d done, %d failed)\nretries: %d\nadds: %d sent, %d accepted\ndeletes: %d sent, %d accepted\n",
		up.ID, up.State, up.RowsRead, up.RowsInvalid, p.Batches, p.Done, p.Failed, p.Retries, p.Adds, p.AddsAccepted, p.Deletes, p.DeletesAccepted)
	if p.OperationErrors > 0 {
		fmt.Fprintf(w, "item errors: %d\n", p.OperationErrors)
	}
}
