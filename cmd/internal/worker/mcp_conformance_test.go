package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsync/adsync/cmd/internal/webui"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/stretchr/testify/require"
)

// conformanceCLI is the protocol's conformance suite, installed into
// sync/mcp/testdata by .ci/test-deps.
var conformanceCLI = filepath.Join("..", "..", "..", "sync", "mcp", "testdata", "node_modules", ".bin", "conformance")

// expectedConformanceFailures are the suite's server scenarios /mcp fails
// by design, each with its reason: all but one call the suite's own
// fixture tools, resources and prompts, which a server must define to pass
// them, and adsync serves only its read-only tools. It is the one list of
// them: a scenario named here that passes fails the test (drop it from the
// list), and so does any other scenario that fails.
var expectedConformanceFailures = map[string]string{
	"server-sse-multiple-streams": "checks concurrent streams of one session, and /mcp is stateless by design " +
		"(the specification's session ID is a MAY; any request is answered without an initialize, by any " +
		"replica): the suite warns that no session ID was given and its baseline counts the warning as a failure",
	"tools-call-simple-text":       fixtureTool("test_simple_text"),
	"tools-call-image":             fixtureTool("test_image_content"),
	"tools-call-audio":             fixtureTool("test_audio_content"),
	"tools-call-embedded-resource": fixtureTool("test_embedded_resource"),
	"tools-call-mixed-content":     fixtureTool("test_multiple_content_types"),
	"tools-call-with-logging":      fixtureTool("test_tool_with_logging"),
	"tools-call-with-progress":     fixtureTool("test_tool_with_progress"),
	"tools-call-error": fixtureTool("test_error_handling") + " (adsync answers the unknown tool with the " +
		"protocol error the specification gives, -32602; its own tools' bad arguments are isError results, " +
		"see sync/mcp's tests)",
	"tools-call-sampling":          fixtureTool("test_sampling") + "; a stateless server cannot ask the client anything",
	"tools-call-elicitation":       fixtureTool("test_elicitation") + "; a read-only server never asks the user",
	"elicitation-sep1034-defaults": fixtureTool("test_elicitation_sep1034_defaults") + "; a read-only server never asks the user",
	"elicitation-sep1330-enums":    fixtureTool("test_elicitation_sep1330_enums") + "; a read-only server never asks the user",
	"completion-complete": "completes an argument of the suite's fixture prompt test_prompt_with_arguments: adsync " +
		"has no prompts, so it declares no completions and completion/complete is not found",
	"resources-read-text":      fixtureResource("test://static-text"),
	"resources-read-binary":    fixtureResource("test://static-binary"),
	"resources-templates-read": fixtureResource("a test://template/{id}/data resource"),
	"resources-subscribe": "subscribes to the suite's fixture resource: adsync serves no resources, so it " +
		"declares no subscriptions and resources/subscribe is not found",
	"resources-unsubscribe":         "subscribes first, as resources-subscribe",
	"prompts-get-simple":            fixturePrompt("test_simple_prompt"),
	"prompts-get-with-args":         fixturePrompt("test_prompt_with_arguments"),
	"prompts-get-embedded-resource": fixturePrompt("test_prompt_with_embedded_resource"),
	"prompts-get-with-image":        fixturePrompt("test_prompt_with_image"),
}

func fixtureTool(name string) string {
	return "calls the suite's fixture tool " + name + ", which adsync does not serve"
}

func fixtureResource(uri string) string {
	return "reads the suite's fixture resource " + uri + ": adsync serves no resources"
}

func fixturePrompt(name string) string {
	return "gets the suite's fixture prompt " + name + ": adsync serves no prompts"
}

// conformanceMustPass are the scenarios that pass with at least one check
// that succeeded: the lifecycle (initialize with the protocol version's
// negotiation, ping, logging/setLevel), the tools' listing, the empty
// resource and prompt listings, and the transport's DNS rebinding defence
// (through the worker's access layer). A suite that stops running one
// fails the test, so a new version cannot drop them unseen.
var conformanceMustPass = []string{"server-initialize", "ping", "logging-set-level", "tools-list",
	"resources-list", "prompts-list", "dns-rebinding-protection"}

// scenarioOutcome is one scenario's checks as the suite saved them.
type scenarioOutcome struct {
	failures, warnings []string // "check-id: message" of each
	successes, checks  int
}

// passed is the suite's own rule: a scenario passes when none of its
// checks failed or warned.
func (s scenarioOutcome) passed() bool { return len(s.failures) == 0 && len(s.warnings) == 0 }

// The protocol's own conformance suite, a client we did not write, runs
// its server scenarios (its active suite) against the worker's /mcp: its
// routes, access layer included, on a loopback listener over a migrated
// database. Every scenario passes but those expectedConformanceFailures
// names, which fail.
func TestWorkerMCPPassesTheConformanceSuitesServerScenarios(t *testing.T) {
	t.Parallel()
	cli, err := filepath.Abs(conformanceCLI)
	require.NoError(t, err)
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("the MCP conformance suite is missing: run make test-deps (bash .ci/test-deps): %v", err)
	}
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	_, err = pool.Exec(context.Background(), `INSERT INTO accounts (id, name, timezone, raw, doc_hash)
        VALUES ('ny', 'New York Account', 'America/New_York', '{}', 'h')`)
	require.NoError(t, err)
	o := Options{Pool: pool, Metrics: jobs.NewMetrics(), Access: webui.Access{Loopback: true}}
	var running atomic.Bool
	srv := httptest.NewServer(o.routes(webui.New(webui.Options{Pool: pool}), &running))
	t.Cleanup(srv.Close)

	// The suite judges too: with the expected failures as its baseline it
	// exits non-zero on any other failure and on a listed scenario that
	// passes.
	work := t.TempDir()
	baseline := filepath.Join(work, "baseline.yaml")
	require.NoError(t, os.WriteFile(baseline, []byte(conformanceBaseline()), 0o600))
	results := filepath.Join(work, "results")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, "server", "--url", srv.URL+"/mcp", "--expected-failures", baseline,
		"--output-dir", results)
	cmd.Dir = work
	out, runErr := cmd.CombinedOutput()
	outcomes := readConformanceResults(t, results)
	report := conformanceReport(runErr, out, outcomes)

	require.NoError(t, runErr, report)
	for name, why := range expectedConformanceFailures {
		s, ok := outcomes[name]
		require.True(t, ok, "%s (%s) did not run: drop it from the list\n%s", name, why, report)
		require.False(t, s.passed(), "%s passes: drop it from the expected failures\n%s", name, report)
	}
	for name, s := range outcomes {
		if _, expected := expectedConformanceFailures[name]; !expected {
			require.True(t, s.passed(), "%s fails\n%s", name, report)
		}
	}
	for _, name := range conformanceMustPass {
		require.Contains(t, outcomes, name, "the suite no longer runs %s\n%s", name, report)
		require.Positive(t, outcomes[name].successes, "%s checked nothing\n%s", name, report)
	}
}

// conformanceBaseline is expectedConformanceFailures as the suite's
// --expected-failures file.
func conformanceBaseline() string {
	names := make([]string, 0, len(expectedConformanceFailures))
	for n := range expectedConformanceFailures {
		names = append(names, n)
	}
	slices.Sort(names)
	return "server:\n  - " + strings.Join(names, "\n  - ") + "\n"
}

// conformanceReport is the suite's own output, then each scenario's
// outcome, for a failure's message.
func conformanceReport(runErr error, out []byte, outcomes map[string]scenarioOutcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the suite (exit: %v):\n%s\nper scenario:\n", runErr, out)
	names := make([]string, 0, len(outcomes))
	for n := range outcomes {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s := outcomes[n]
		fmt.Fprintf(&b, "  %s: %d checks, %d succeeded; failed %q; warned %q\n", n, s.checks, s.successes, s.failures, s.warnings)
	}
	return b.String()
}

// resultDir is a scenario's results directory: server-<scenario>-<time>.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[0-9-]+Z$`)

// readConformanceResults reads each scenario's checks.json the suite saved
// under dir, by scenario.
func readConformanceResults(t *testing.T, dir string) map[string]scenarioOutcome {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	require.NoError(t, err)
	out := map[string]scenarioOutcome{}
	for _, f := range files {
		m := resultDir.FindStringSubmatch(filepath.Base(filepath.Dir(f)))
		require.NotNil(t, m, "%s: not a scenario's results", f)
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var checks []struct {
			ID           string `json:"id"`
			Status       string `json:"status"`
			ErrorMessage string `json:"errorMessage"`
			Details      struct {
				Message string `json:"message"`
			} `json:"details"`
		}
		require.NoError(t, json.Unmarshal(raw, &checks), f)
		s := scenarioOutcome{checks: len(checks)}
		for _, c := range checks {
			switch c.Status {
			case "SUCCESS":
				s.successes++
			case "FAILURE":
				s.failures = append(s.failures, c.ID+": "+c.ErrorMessage)
			case "WARNING":
				s.warnings = append(s.warnings, c.ID+": "+c.ErrorMessage+c.Details.Message)
			}
		}
		out[m[1]] = s
	}
	return out
}
