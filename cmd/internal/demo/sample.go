package demo

import (
	"os"
	"path/filepath"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/insights"
)

// Audience is the custom audience the demo uploads the sample CRM file to.
const Audience = "adsync demo CRM"

// Keywords is the keyword set the demo looks up when none is configured:
// the fake's alone, never a configured service's.
var Keywords = insights.KeywordSet{Name: "demo", Keywords: []string{"running shoes", "trail shoes"},
	NegativeKeywords: []string{"used"}, Granularity: "DAY"}

// sampleCRMPath is the sample CRM file in the repository, uploaded by the
// demo when run from the repository's root.
var sampleCRMPath = filepath.Join("fixtures", "sample", "crm.csv")

// SampleCRM returns the sample CRM file to upload and the name to show for
// it: the repository's fixtures/sample/crm.csv when run from the
// repository's root, else a temporary copy of the one built in, removed
// when the command ends.
func (e *Env) SampleCRM() (file, name string, err error) {
	if st, err := os.Stat(sampleCRMPath); err == nil && st.Mode().IsRegular() {
		return sampleCRMPath, sampleCRMPath, nil
	}
	f, err := os.CreateTemp("", "adsync-sample-crm-*.csv")
	if err != nil {
		return "", "", err
	}
	file = f.Name()
	e.OnClose(func() { _ = os.Remove(file) })
	if _, err := f.Write(fixtures.SampleCRM); err != nil {
		_ = f.Close()
		return "", "", err
	}
	if err := f.Close(); err != nil {
		return "", "", err
	}
	return file, "the sample CRM file (" + filepath.ToSlash(sampleCRMPath) + ", built in)", nil
}
