package stats

import (
	"fmt"
	"io"
)

// WriteReport writes an ended run's report for people: what it pulled
// and asked, the ids and days missing, those not pulled, and its outcome.
func (r RunState) WriteReport(w io.Writer) {
	rep := r.Report
	fmt.Fprintf(w, "accounts %d, account-days %d, active entities %d, requests %d (active entities %d, synchronous stats %d, asynchronous jobs %d), 429 answers %d, jobs %d, rows %d\n",
		rep.Accounts, rep.AccountDays, rep.Active, rep.ActiveRequests+rep.Requests+rep.JobRequests, rep.ActiveRequests, rep.Requests, rep.JobRequests, rep.RateLimited, rep.Jobs, rep.Rows)
	for _, m := range rep.Missing {
		fmt.Fprintf(w, "missing: %s\n", m)
	}
	for _, e := range rep.Empty {
		fmt.Fprintf(w, "not pulled: %s\n", e)
	}
	fmt.Fprintf(w, "stats run %d %s\n", r.ID, r.Outcome)
}
