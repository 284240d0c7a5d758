package adsynccmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runConfigured runs adsync run against the bundle's fake configured as the
// service (not the demo), with extra appended to its configuration file and
// the export in a temporary folder. Its analytics step pulls a day of
// campaigns (passStats): these tests pin what a pass does with the
// audiences and keyword sets it is given, and the demo pass's test pins a
// whole analytics step.
// passStats is the analytics configuration of runConfigured's pass.
const passStats = "stats:\n  lookback: 24h\n  entities: [CAMPAIGN]\n"

func (b *serviceBundle) runConfigured(t *testing.T, extra string) result {
	t.Helper()
	conf, err := os.ReadFile(b.conf)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "adsync.yaml")
	y := string(conf) + "export:\n  out: " + filepath.Join(t.TempDir(), "out") + "\n" + passStats + extra
	require.NoError(t, os.WriteFile(file, []byte(y), 0o600))
	withFile := *b
	withFile.conf = file
	r := withFile.run(t, "run")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.NotContains(t, r.stdout, "fake service:", "the configured service, not the demo")
	b.requireNoSecrets(t, r.stdout+r.stderr)
	return r
}

// insightSets lists the keyword sets whose windows were stored.
func (b *serviceBundle) insightSets(t *testing.T) []string {
	t.Helper()
	var sets []string
	require.NoError(t, b.pool(t).QueryRow(context.Background(),
		`SELECT coalesce(array_agg(DISTINCT set_name ORDER BY set_name), '{}') FROM keyword_insight_windows`).Scan(&sets))
	return sets
}

// With neither audiences nor keyword sets configured, a pass against a
// configured (real) service uploads nothing, fetches no insights, and its
// next steps name neither the demo's sample file nor the fake service.
func TestRunAgainstAConfiguredServiceWithoutAudiencesOrKeywordSetsSkipsBothAndSuggestsNoDemoFileAndNoFake(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.runConfigured(t, "")
	require.Contains(t, r.stdout, "== 2/6 audience upload\nskipped: audience uploads change a real audience; configure them under audiences: "+
		"in the configuration file (see docs/audiences.md), or use adsync audience upload\n")
	require.Contains(t, r.stdout, "== 3/6 fetch keyword insights\nskipped: no keyword sets configured; list them under insights.keyword_sets in the configuration file (see docs/configuration.md)\n")
	require.Empty(t, b.insightSets(t), "the demo's keyword set is not fetched from a configured service")
	next := r.stdout[strings.Index(r.stdout, "What to try next"):]
	require.Contains(t, next, " run --config ")
	for _, demo := range []string{"crm.csv", "CRM file", "fixtures serve", "--demo", "fake"} {
		require.NotContains(t, next, demo)
	}
	require.NotContains(t, r.stdout, "fixtures/sample")
}

// One pass syncs each configured audience and fetches only the configured
// keyword sets; a refused audience then fails the next pass.
func TestRunAgainstAConfiguredServiceFetchesOnlyTheConfiguredKeywordSetsAndSyncsEachConfiguredAudienceAndARefusedOneFailsThePass(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	in := writeFile(t, "crm.csv", "email\na@example.com\nb@example.com\nc@example.com\n")
	extra := "insights:\n  keyword_sets:\n    - name: coffee\n      keywords: [coffee, espresso]\n      granularity: DAY\n" +
		"audiences:\n  - name: crm\n    account: " + acct + "\n    audience: " + aud + "\n    source:\n      file: " + in + "\n    mode: replace\n"
	r := b.runConfigured(t, extra)
	require.Regexp(t, `== 3/6 fetch keyword insights\n1 keyword sets, 1 windows, \d+ requests, \d+ volume buckets stored\n`, r.stdout)
	require.Equal(t, []string{"coffee"}, b.insightSets(t))
	require.Contains(t, r.stdout, "== 2/6 sync the configured audiences (crm)\naudience crm:\nplan for audience "+aud+" (replace):\n")
	require.Contains(t, r.stdout, "adds: 3 sent, 3 accepted\n")
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 3, "the pass sent the audience's users")
	require.Contains(t, r.stdout, "== 6/6 export to Parquet", "the pass went on after the audience")

	// The source lost two of its three users: the replace is refused, the
	// pass fails naming the audience, and the members stay.
	require.NoError(t, os.WriteFile(in, []byte("email\na@example.com\n"), 0o600))
	conf, err := os.ReadFile(b.conf)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(file, []byte(string(conf)+"export:\n  out: "+filepath.Join(t.TempDir(), "out")+"\n"+extra), 0o600))
	withFile := *b
	withFile.conf = file
	r = withFile.run(t, "run")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "audience crm: replace would delete 2 of 3 known identifiers")
	require.NotContains(t, r.stdout, "== 3/6", "a refused audience stops the pass")
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 3)
	b.requireNoSecrets(t, r.stdout+r.stderr)
}
