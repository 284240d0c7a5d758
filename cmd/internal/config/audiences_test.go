package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/sync/audience"
	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/require"
)

const audiencesYAML = `audiences:
  - name: crm-nightly
    account: 18b47glfyb2
    create: CRM customers
    source:
      file: /var/lib/crm/customers.csv
    mode: replace
    max_delete: 500
    schedule: "CRON_TZ=Europe/Berlin 0 3 * * *"
  - name: vip
    account: 18b47glfyb2
    audience: 4xk2p
    source:
      query: SELECT email FROM customers WHERE vip
      source_url: postgres://reader:s3cret-pw@warehouse.internal/crm
`

func TestAudiencesLoadAsDefinitionsWithTheirDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := Load(Source{File: writeFile(t, audiencesYAML), Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	require.Equal(t, map[string]audience.Definition{
		"crm-nightly": {Name: "crm-nightly", AccountID: "18b47glfyb2", Create: "CRM customers", Path: "/var/lib/crm/customers.csv",
			Mode: audience.ModeReplace, MaxDelete: bound.Count(500), Schedule: "CRON_TZ=Europe/Berlin 0 3 * * *", QueryTimeout: audience.DefaultQueryTimeout},
		"vip": {Name: "vip", AccountID: "18b47glfyb2", AudienceID: "4xk2p", Query: "SELECT email FROM customers WHERE vip",
			SourceURL: "postgres://reader:s3cret-pw@warehouse.internal/crm", Mode: audience.ModeAdd, QueryTimeout: audience.DefaultQueryTimeout},
	}, cfg.Definitions())
	require.Equal(t, map[string]string{"crm-nightly": "CRON_TZ=Europe/Berlin 0 3 * * *", "vip": ""}, cfg.AudienceSchedules())
	require.Equal(t, []string{"crm-nightly", "vip"}, cfg.AudienceNames())
}

func TestShownAudiencesMaskTheSourcePasswordAndFillInTheirDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := Load(Source{File: writeFile(t, audiencesYAML), Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	out, err := yaml.Marshal(cfg.Effective().Masked())
	require.NoError(t, err)
	require.NotContains(t, string(out), "s3cret-pw")
	require.Contains(t, string(out), "source_url: postgres://reader:xxxxx@warehouse.internal/crm")
	var shown struct {
		Audiences []Audience `yaml:"audiences"`
	}
	require.NoError(t, yaml.Unmarshal(out, &shown))
	require.Len(t, shown.Audiences, 2)
	require.Equal(t, Scalar("500"), shown.Audiences[0].MaxDelete)
	require.Equal(t, "add", shown.Audiences[1].Mode, "the mode a run applies")
	require.Empty(t, shown.Audiences[1].MaxDelete, "an add deletes nothing")
	require.Equal(t, "postgres://reader:s3cret-pw@warehouse.internal/crm", cfg.Audiences[1].Source.SourceURL, "the configuration itself is untouched")

	cfg.Audiences[0].MaxDelete = ""
	require.Equal(t, Scalar("10%"), cfg.Effective().Audiences[0].MaxDelete, "a replace's default bound")
}

func TestABadAudienceIsRefusedNamingTheFileLineAudienceAndField(t *testing.T) {
	t.Parallel()
	item := func(fields string) string {
		return "audiences:\n  - name: crm\n    account: a1\n" + fields
	}
	const src = "    source:\n      file: crm.csv\n"
	for _, tt := range []struct {
		yaml, want string
	}{
		{item("    audience: x\n" + src + "    mode: replce\n"), `audiences[0].mode (audience "crm"): "replce": want add or replace (file %s:7)`},
		{item("    audience: x\n    create: y\n" + src), `audiences[0].create (audience "crm"): give audience or create, not both (file %s:5)`},
		{item(src), `audiences[0].audience (audience "crm"): give audience (an audience id) or create (a name adsync creates the audience under, once) (file %s:2)`},
		{item("    audience: x\n"), `audiences[0].source (audience "crm"): give source.file (a CSV or NDJSON file) or source.query (SQL) (file %s:2)`},
		{item("    audience: x\n    source:\n      file: a.csv\n      query: SELECT 1\n"), `audiences[0].source (audience "crm"): give source.file or source.query, not both (file %s:5)`},
		{item("    audience: x\n    source:\n      file: a.csv\n      source_url: postgres://u:pw@h/db\n"),
			`audiences[0].source.source_url (audience "crm"): only a query source reads a database (source.query) (file %s:7)`},
		{item("    audience: x\n    source:\n      query: SELECT 1\n      source_url: mysql://u:topsecret@h/db\n"),
			`audiences[0].source.source_url (audience "crm"): mysql://u:xxxxx@h/db: want a postgres:// URL (file %s:7)`},
		{item("    audience: x\n" + src + "    max_delete: 5\n"), `audiences[0].max_delete (audience "crm"): bounds the deletes of mode: replace; mode add deletes nothing (file %s:7)`},
		{item("    audience: x\n" + src + "    mode: replace\n    max_delete: ten\n"), `audiences[0].max_delete (audience "crm"): "ten": want N, P%% or -1 (no bound) (file %s:8)`},
		{item("    audience: x\n" + src + "    schedule: 0 3 * *\n"), `audiences[0].schedule (audience "crm"): invalid cron spec "0 3 * *": expected exactly 5 fields, found 4: [0 3 * *] (file %s:7)`},
		{"audiences:\n  - account: a1\n    audience: x\n" + src, `audiences[0].name: required: adsync audience sync NAME and the runs name the audience by it (file %s:2)`},
		{item("    audience: x\n"+src) + "  - name: crm\n    account: a2\n    audience: y\n" + src, `audiences[1].name (audience "crm"): already the name of audiences[0] (file %s:7)`},
		{item("    audience: x\n"+src) + "  - name: vip list\n    account: a2\n    audience: y\n" + src,
			`audiences[1].name (audience "vip list"): use letters, digits, '.', '_' and '-', starting with a letter or digit (file %s:7)`},
	} {
		file := writeFile(t, tt.yaml)
		_, err := Load(Source{File: file, Getenv: func(string) string { return "" }})
		require.EqualError(t, err, fmt.Sprintf(tt.want, file), tt.yaml)
		require.NotContains(t, err.Error(), "topsecret")
	}
	file := writeFile(t, item("    audience: x\n"+src+"    max_delete: [1]\n"))
	_, err := Load(Source{File: file})
	require.EqualError(t, err, "config file "+file+": line 7: audiences[0].max_delete: want a single value")
	file = writeFile(t, item("    audience: x\n"+src+"    mod: replace\n"))
	_, err = Load(Source{File: file})
	require.True(t, strings.HasPrefix(err.Error(), "config file "+file+": line 7: unknown key \"mod\""), err.Error())
}

func TestQueryTimeoutComesFromAudienceQueryTimeoutAndMustEndBeforeTheJob(t *testing.T) {
	t.Parallel()
	cfg, err := Load(Source{Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	require.Equal(t, 15*time.Minute, time.Duration(cfg.Audience.QueryTimeout), "the default")

	file := writeFile(t, "audience:\n  query_timeout: 90s\n"+audiencesYAML)
	cfg, err = Load(Source{File: file, Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	require.Equal(t, 90*time.Second, cfg.Definitions()["vip"].QueryTimeout, "every configured audience's")
	require.Equal(t, "file "+file+":2", cfg.Origin("audience.query_timeout"))
	env := map[string]string{"ADSYNC_AUDIENCE_QUERY_TIMEOUT": "2m"}
	cfg, err = Load(Source{File: file, Getenv: func(k string) string { return env[k] }})
	require.NoError(t, err)
	require.Equal(t, 2*time.Minute, cfg.Definitions()["vip"].QueryTimeout, "the environment over the file")

	for _, tt := range []struct{ yaml, want string }{
		{"audience:\n  query_timeout: 0s\n", "audience.query_timeout: 0s: must be positive (it bounds the reading of a query source; default 15m0s) (file "},
		{"audience:\n  query_timeout: 45m\n", "audience.query_timeout: 45m0s: must be shorter than worker.job_timeout (30m0s)"},
		{"audience:\n  query_timeout: 45m\nworker:\n  job_timeout: 1h\n", ""},
		{"worker:\n  job_timeout: 1m\n", ""}, // the default is not held to it
		{"audience:\n  query_timout: 5m\n", `unknown key "query_timout"`},
	} {
		_, err := Load(Source{File: writeFile(t, tt.yaml), Getenv: func(string) string { return "" }})
		if tt.want == "" {
			require.NoError(t, err, tt.yaml)
			continue
		}
		require.ErrorContains(t, err, tt.want, tt.yaml)
	}
}
