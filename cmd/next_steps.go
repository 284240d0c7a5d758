package adsynccmd

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/adsync/adsync/export"
)

// nextSteps is what adsync run suggests trying next: commands that run as
// printed, in a shell in the current directory (their descriptions are
// shell comments), each ending by itself or on Ctrl-C.
// globals are the global flags adsync run was given that the commands need
// too, note a comment to print before them; demo is its --demo; fake says
// the pass ran against the fake service (against the real one, no step
// names the demo's sample file or the fake).
func nextSteps(out, globals, note string, demo, fake bool) string {
	self := selfCommand()
	var b strings.Builder
	b.WriteString("\nWhat to try next (from this directory; each line runs as printed):\n")
	if note != "" {
		fmt.Fprintf(&b, "  # %s\n", note)
	}
	line := func(cmd, what string) {
		fmt.Fprintf(&b, "  %-48s # %s\n", cmd, what)
	}
	again := self + " run" + globals
	if demo {
		again += " --demo"
	}
	line(self+" status"+globals, "recent runs, queues, failures")
	line(self+" db"+globals+" -- -c "+shellQuote(runsQuery), "the same runs with psql; adsync db alone opens a session")
	if fake {
		line(again, "again: the sync is incremental, the same CRM file is skipped")
	} else {
		line(again, "again: the sync is incremental")
	}
	line(self+" export --out "+shellQuote(out)+" --full"+globals, "every row again, not only what changed")
	if q := duckdbCommand(out); q != "" {
		fmt.Fprintf(&b, "  # the current campaigns by status, read from the Parquet files with DuckDB:\n  %s\n", q)
	}
	line(self+" worker --http-addr 127.0.0.1:0"+globals, "the daemon: schedules; the runs page at the http:// URL it prints, River's UI at /riverui/; Ctrl-C stops it")
	if fake {
		line(self+" fixtures serve --addr 127.0.0.1:0", "the fake service on its own, to point any client at; Ctrl-C stops it")
	}
	return b.String()
}

// runsQuery is the query the next steps suggest running with adsync db.
const runsQuery = "select pipeline, outcome, count(*) from sync_runs group by 1, 2 order by 1, 2"

// passedGlobals is the --config and --database-url adsync was given, as
// flags to repeat. A database URL holding a password is never printed:
// note then asks for it in ADSYNC_DATABASE_URL instead.
func (a *app) passedGlobals() (flags, note string) {
	if a.configFile != "" {
		flags += " --config " + shellQuote(a.configFile)
	}
	if a.databaseURL != "" {
		if u, err := url.Parse(a.databaseURL); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				return flags, "first: export ADSYNC_DATABASE_URL=<the --database-url given to this run> (its password is not printed)"
			}
		}
		flags += " --database-url " + shellQuote(a.databaseURL)
	}
	return flags, ""
}

// duckdbCommand is a command querying the export in out with DuckDB: the
// Makefile's duckdb target (DuckDB's Node API, installed on first use) in
// the repository's root, else the DuckDB CLI when installed; empty when
// neither is at hand.
func duckdbCommand(out string) string {
	if export.IsObjectStore(out) {
		return "" // DuckDB reads a bucket only through its httpfs extension and its own credentials setup
	}
	if strings.HasPrefix(out, "file://") {
		if loc, err := export.ParseOutput(out); err == nil {
			out = loc
		}
	}
	if strings.ContainsAny(out, "\"'$`\\") {
		return ""
	}
	sql := "SELECT entity_status, count(*) FROM (FROM '" + filepath.ToSlash(filepath.Join(out, "campaigns")) +
		"/*/*.parquet' QUALIFY _export_run = max(_export_run) OVER (PARTITION BY account_id, id)) GROUP BY 1 ORDER BY 1"
	if mk, err := os.ReadFile("Makefile"); err == nil && bytes.Contains(mk, []byte("\nduckdb:")) {
		return `make duckdb SQL="` + sql + `"`
	}
	if _, err := exec.LookPath("duckdb"); err == nil {
		return `duckdb -c "` + sql + `"`
	}
	return ""
}

// selfCommand is how to run this adsync from the current directory, as it
// was invoked (see invokedAs).
func selfCommand() string {
	wd, _ := os.Getwd()
	exe, _ := os.Executable()
	return invokedAs(os.Args[0], wd, exe, exec.LookPath)
}

// invokedAs is the command that runs the binary exe again from wd, given
// the arg0 it was invoked by: the path typed when arg0 holds a path
// separator (relative as typed when it leads to exe from wd, else exe's
// absolute path), the plain name when the shell found it on PATH
// (lookPath). A binary go run or go test built in a temporary directory
// is gone once it ends: the build of make run (./bin/adsync) stands in
// for it, else the plain name adsync.
func invokedAs(arg0, wd, exe string, lookPath func(string) (string, error)) string {
	switch {
	case exe == "" || builtByGo(exe):
	case !strings.ContainsRune(arg0, '/') && !strings.ContainsRune(arg0, filepath.Separator):
		if p, err := lookPath(arg0); err == nil && sameFile(p, exe) {
			return shellQuote(arg0)
		}
		return shellQuote(exe)
	case filepath.IsAbs(arg0) && sameFile(arg0, exe):
		return shellQuote(arg0)
	case !filepath.IsAbs(arg0) && wd != "" && sameFile(filepath.Join(wd, arg0), exe):
		return shellQuote(arg0)
	default:
		return shellQuote(exe)
	}
	if st, err := os.Stat(filepath.Join(wd, "bin", "adsync")); err == nil && st.Mode().IsRegular() {
		return "./bin/adsync"
	}
	return "adsync"
}

// builtByGo says whether exe is a binary go run or go test built in its
// temporary work directory (go-build*).
func builtByGo(exe string) bool {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// sameFile says whether paths a and b name the same existing file.
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
