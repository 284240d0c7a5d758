package access_test

import (
	"os"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }
