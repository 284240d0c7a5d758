package hashing_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

// repeatedUsersCSV is 10 distinct users written 3 times each, every time
// differently (case, padding and phone formatting do not make another
// user), plus one row sharing an email
// with user 0 but not its phone: another user.
func repeatedUsersCSV() string {
	var b strings.Builder
	b.WriteString("email,phone\n")
	for rep := range 3 {
		for i := range 10 {
			switch rep {
			case 0:
				fmt.Fprintf(&b, "user%d@example.com,+14155550%03d\n", i, i)
			case 1:
				fmt.Fprintf(&b, "  USER%d@Example.COM ,+1 415 555 0%03d\n", i, i)
			default:
				fmt.Fprintf(&b, "User%d@example.com,(415) 555-0%03d\n", i, i)
			}
		}
	}
	b.WriteString("user0@example.com,+14155559999\n")
	return b.String()
}

func TestEachDistinctUserIsEmittedOnceAndRepeatsAreCountedAsDuplicates(t *testing.T) {
	t.Parallel()
	n, err := hashing.NewNormalizer(hashing.Options{DefaultCountry: "US"})
	require.NoError(t, err)
	for _, workers := range []int{0, 1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			t.Parallel()
			r, err := hashing.NewCSVReader(strings.NewReader(repeatedUsersCSV()), hashing.ReaderOptions{})
			require.NoError(t, err)
			var lines []int
			emit := func(u hashing.HashedUser) error { lines = append(lines, u.Line); return nil }
			var report hashing.Report
			if workers == 0 {
				require.NoError(t, hashing.HashRecords(r, n, emit, &report))
			} else {
				require.NoError(t, hashing.HashRecordsParallel(r, n, workers, emit, &report))
			}
			require.Equal(t, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 32}, lines, "the first row of each user, and the row that differs in a phone")
			require.Equal(t, 31, report.RowsRead)
			require.Equal(t, 11, report.RowsEmitted)
			require.Equal(t, 20, report.RowsDuplicate)
			require.Equal(t, map[hashing.Type]int{hashing.TypeEmail: 11, hashing.TypePhoneNumber: 11}, report.Valid,
				"identifiers are counted for the users emitted")
			var text strings.Builder
			require.NoError(t, report.WriteText(&text))
			require.Contains(t, text.String(), "rows emitted: 11\n")
			require.Contains(t, text.String(), "duplicates: 20 rows repeat a user already in the file (each user is sent once)\n")
		})
	}
}

func TestNDJSONRepeatsAreDuplicatesToo(t *testing.T) {
	t.Parallel()
	n, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	in := `{"email":["a@example.com","b@example.com"]}` + "\n" + `{"email":["B@example.com"," a@example.com"]}` + "\n" + `{"email":["a@example.com"]}` + "\n"
	r := hashing.NewNDJSONReader(strings.NewReader(in), hashing.ReaderOptions{})
	var report hashing.Report
	users := 0
	require.NoError(t, hashing.HashRecordsParallel(r, n, 2, func(hashing.HashedUser) error { users++; return nil }, &report))
	require.Equal(t, 2, users, "the same set of emails in another order is the same user; a subset is another")
	require.Equal(t, 1, report.RowsDuplicate)
}

// A plan whose set of users cannot write its run (TMPDIR missing) stops
// with the error naming the folder, at the user that filled memory: no
// user after it is emitted, and none is counted as a duplicate.
func TestAFileThatOverflowsTheSetIntoAnUnwritableFolderStopsWithTheError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	t.Setenv("TMPDIR", missing)
	n, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("email\n")
	rows := hashing.KeysInMemory + 100
	for i := range rows {
		fmt.Fprintf(&b, "user%d@example.com\n", i)
	}
	r, err := hashing.NewCSVReader(strings.NewReader(b.String()), hashing.ReaderOptions{})
	require.NoError(t, err)
	emitted := 0
	var report hashing.Report
	err = hashing.HashRecordsParallel(r, n, 2, func(hashing.HashedUser) error { emitted++; return nil }, &report)
	require.ErrorContains(t, err, "remembering the users already seen")
	require.ErrorContains(t, err, missing)
	require.Less(t, emitted, hashing.KeysInMemory, "the user that filled memory and every one after it are not emitted")
	require.Zero(t, report.RowsDuplicate)
}
