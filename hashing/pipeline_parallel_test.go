package hashing_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

// mixedCSV has valid, invalid, unreadable and empty rows across many chunks.
func mixedCSV() string {
	var b strings.Builder
	b.WriteString("email,phone,external_id\n")
	for i := range 3000 {
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "bad%d,,\n", i)
		case 1:
			b.WriteString("a,b\n")
		case 2:
			b.WriteString(",,\n")
		default:
			fmt.Fprintf(&b, "U%d@Example.com,+1 415 555 %04d,crm-%d\n", i, i, i)
		}
	}
	return b.String()
}

func collect(t *testing.T, run func(r hashing.RecordReader, emit func(hashing.HashedUser) error, report *hashing.Report) error) ([]string, hashing.Report) {
	t.Helper()
	r, err := hashing.NewCSVReader(strings.NewReader(mixedCSV()), hashing.ReaderOptions{})
	require.NoError(t, err)
	var out []string
	report := hashing.Report{MaxInvalidListed: 5000}
	require.NoError(t, run(r, func(u hashing.HashedUser) error {
		out = append(out, fmt.Sprintf("%d %s", u.Line, u.AppendJSON(nil)))
		return nil
	}, &report))
	return out, report
}

func TestHashRecordsParallelMatchesSequentialOutputOrderAndReport(t *testing.T) {
	t.Parallel()
	n := normalizer(t, hashing.Options{DefaultCountry: "US", PassThroughHashed: true})
	want, wantReport := collect(t, func(r hashing.RecordReader, emit func(hashing.HashedUser) error, rep *hashing.Report) error {
		return hashing.HashRecords(r, n, emit, rep)
	})
	require.NotEmpty(t, want)
	require.Positive(t, wantReport.RowsInvalid)
	for _, workers := range []int{0, 1, 2, 7} {
		got, gotReport := collect(t, func(r hashing.RecordReader, emit func(hashing.HashedUser) error, rep *hashing.Report) error {
			return hashing.HashRecordsParallel(r, n, workers, emit, rep)
		})
		require.Equal(t, want, got, "workers=%d", workers)
		require.Equal(t, wantReport, gotReport, "workers=%d", workers)
	}
}

func TestHashRecordsParallelStopsAtTheFirstEmitError(t *testing.T) {
	t.Parallel()
	r, err := hashing.NewCSVReader(strings.NewReader(mixedCSV()), hashing.ReaderOptions{})
	require.NoError(t, err)
	boom := errors.New("disk full")
	calls := 0
	err = hashing.HashRecordsParallel(r, normalizer(t, hashing.DefaultOptions()), 3, func(hashing.HashedUser) error {
		calls++
		if calls == 10 {
			return boom
		}
		return nil
	}, &hashing.Report{})
	require.ErrorIs(t, err, boom)
	require.Equal(t, 10, calls, "nothing emitted after the error")
}

// failingReader yields one record, then a fatal error.
type failingReader struct{ n int }

func (f *failingReader) Next() (hashing.Record, error) {
	f.n++
	if f.n == 1 {
		return hashing.Record{Line: 1, Values: map[hashing.Type][]string{hashing.TypeEmail: {"a@b.co"}}}, nil
	}
	return hashing.Record{}, io.ErrUnexpectedEOF
}

func TestHashRecordsParallelReturnsTheReadersFatalError(t *testing.T) {
	t.Parallel()
	emitted := 0
	err := hashing.HashRecordsParallel(&failingReader{}, normalizer(t, hashing.DefaultOptions()), 2, func(hashing.HashedUser) error {
		emitted++
		return nil
	}, &hashing.Report{})
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Equal(t, 1, emitted, "rows read before the error still go out")
}

// anyReader hides a reader's type: HashRecordsParallel takes its generic
// path (the one Parquet and query readers take), not the CSV one.
type anyReader struct{ hashing.RecordReader }

func TestHashRecordsParallelOfAnyReaderMatchesSequentialUsersAndReport(t *testing.T) {
	t.Parallel()
	n := normalizer(t, hashing.Options{DefaultCountry: "US", PassThroughHashed: true})
	for _, in := range []string{mixedCSV(), trickyCSV(3000)} {
		run := func(parallel bool) ([]string, hashing.Report) {
			r, err := hashing.NewCSVReader(strings.NewReader(in), hashing.ReaderOptions{IgnoreUnknown: true})
			require.NoError(t, err)
			var out []string
			rep := hashing.Report{MaxInvalidListed: 1 << 20}
			emit := func(u hashing.HashedUser) error {
				out = append(out, fmt.Sprintf("%d %s %d", u.Line, u.AppendJSON(nil), u.Len()))
				return nil
			}
			if parallel {
				require.NoError(t, hashing.HashRecordsParallel(anyReader{r}, n, 3, emit, &rep))
			} else {
				require.NoError(t, hashing.HashRecords(r, n, emit, &rep))
			}
			return out, rep
		}
		want, wantRep := run(false)
		got, gotRep := run(true)
		require.NotEmpty(t, want)
		require.Positive(t, wantRep.RowsInvalid)
		require.Equal(t, want, got)
		require.Equal(t, wantRep, gotRep)
	}
}
