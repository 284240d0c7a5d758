package hashing_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

// hashBoth runs in through the simple path (CSVReader.Next and
// HashRecords, one row at a time) and through the parallel path with
// workers, and returns what each emitted (line and user object) and
// reported.
func hashBoth(t testing.TB, in string, opts hashing.ReaderOptions, n *hashing.Normalizer, workers int) (want, got []string, wantRep, gotRep hashing.Report, wantErr, gotErr error) {
	run := func(parallel bool) ([]string, hashing.Report, error) {
		r, err := hashing.NewCSVReader(strings.NewReader(in), opts)
		if err != nil {
			return nil, hashing.Report{}, err
		}
		var out []string
		rep := hashing.Report{MaxInvalidListed: 1 << 20}
		emit := func(u hashing.HashedUser) error {
			var vals []string
			for _, typ := range hashing.Types() {
				vals = append(vals, fmt.Sprint(u.Values(typ)))
			}
			out = append(out, fmt.Sprintf("%d %s %v %d", u.Line, u.AppendJSON(nil), vals, u.Len()))
			return nil
		}
		if parallel {
			err = hashing.HashRecordsParallel(r, n, workers, emit, &rep)
		} else {
			err = hashing.HashRecords(r, n, emit, &rep)
		}
		return out, rep, err
	}
	want, wantRep, wantErr = run(false)
	got, gotRep, gotErr = run(true)
	return
}

// trickyCSV has every kind of line the fast path must leave to
// encoding/csv or treat exactly like it.
func trickyCSV(rows int) string {
	var b strings.Builder
	b.WriteString("\ufeffEmail,phone,external_id,IDFA,handle,user_id,email2\r\n")
	for i := range rows {
		switch i % 19 {
		case 0:
			fmt.Fprintf(&b, "\"U%d@Example.com\",\"+1 415 555 %04d\",\"crm,%d\",,,,\r\n", i, i%10000, i)
		case 1:
			fmt.Fprintf(&b, "\"multi\nline%d@x.co\",,,,,,\n", i) // a quoted field spanning lines
		case 2:
			b.WriteString("\r\n\n   \n\t\n") // blank lines
		case 3:
			fmt.Fprintf(&b, "bad%d,,,,,,\n", i) // invalid email
		case 4:
			b.WriteString("a,b\n") // wrong field count
		case 5:
			fmt.Fprintf(&b, "x%d@y.co,,\"q\"\"uote\\%d\",,@Jack_%d,%d,X%d@Y.CO\n", i, i, i, i, i)
		case 6:
			fmt.Fprintf(&b, "dup%d@y.co,,,,,,DUP%d@Y.CO\n", i, i) // one email after dedup
		case 7:
			b.WriteString("c@d.co,\xff\xfe,,,,,\n") // invalid UTF-8
		case 8:
			b.WriteString("e@f\"g.co,,,,,,\n") // bare quote
		case 9:
			fmt.Fprintf(&b, "%s,,,6D92078A-8246-4BA4-AE5B-76104861E7D%d,,,\n", strings.Repeat("AB", 32), i%10)
		case 10:
			b.WriteString(",,,,,,\n") // all empty: skipped
		case 11:
			fmt.Fprintf(&b, "z%d@y.co,,ext %d ,00000000-0000-0000-0000-000000000000,,x1,\n", i, i) // two invalid values
		case 12:
			fmt.Fprintf(&b, "w%d@y.co,,,,,,\r\r\n", i) // a carriage return left after the line ending
		case 13:
			fmt.Fprintf(&b, "%s\n", strings.Repeat("long", 40)) // over MaxLineBytes
		case 14:
			fmt.Fprintf(&b, "\"v%d@y.co,,,,,,\n", i) // unclosed quote
		case 15:
			fmt.Fprintf(&b, "  é%d@ü.de  , , crm-é ,,,,\n", i)
		case 16:
			fmt.Fprintf(&b, "s%d@y.co,,,,,,,\n", i) // one field too many
		case 17:
			fmt.Fprintf(&b, "\"\"\"t%d\"\"@y.co\",,,,,,\n", i)
		default:
			fmt.Fprintf(&b, "r%d@y.co,%d,crm-%d,,,,\n", i, 14155550100+i, i)
		}
	}
	return b.String()
}

func TestHashRecordsParallelCSVMatchesTheSimplePathOnTrickyInput(t *testing.T) {
	t.Parallel()
	n := normalizer(t, hashing.Options{DefaultCountry: "US", PassThroughHashed: true})
	in := trickyCSV(9000) // several chunks
	for _, workers := range []int{1, 2, 3} {
		want, got, wantRep, gotRep, wantErr, gotErr := hashBoth(t, in, hashing.ReaderOptions{MaxLineBytes: 128}, n, workers)
		require.NoError(t, wantErr)
		require.NoError(t, gotErr)
		require.Positive(t, wantRep.RowsInvalid)
		require.Positive(t, wantRep.RowsSkipped)
		require.Positive(t, wantRep.RowsEmitted)
		require.Equal(t, want, got, "workers=%d", workers)
		require.Equal(t, wantRep, gotRep, "workers=%d", workers)
	}
}

func TestHashRecordsParallelCSVMatchesTheSimplePathWithOtherDelimiters(t *testing.T) {
	t.Parallel()
	n := normalizer(t, hashing.Options{DefaultCountry: "GB", PassThroughHashed: true})
	for _, d := range []rune{';', '\t', '|', '§'} {
		in := strings.ReplaceAll(trickyCSV(3000), ",", string(d))
		want, got, wantRep, gotRep, wantErr, gotErr := hashBoth(t, in, hashing.ReaderOptions{Delimiter: d, MaxLineBytes: 128}, n, 2)
		require.NoError(t, wantErr)
		require.NoError(t, gotErr)
		require.Positive(t, wantRep.RowsEmitted, "%q", d)
		require.Equal(t, want, got, "%q", d)
		require.Equal(t, wantRep, gotRep, "%q", d)
	}
}

// FuzzCSVParallelMatchesSimple checks that the parallel path (fast split,
// chunks, workers) emits and reports exactly what the simple path does.
func FuzzCSVParallelMatchesSimple(f *testing.F) {
	f.Add("email,phone\na@b.co,1\n\"x\",\"y\"\"z\"\n", byte(','))
	f.Add("email\n\"unclosed\n\xff\n", byte(','))
	f.Add("\ufeffemail;email2\r\na;b\r\r\n,\n", byte(';'))
	f.Add(trickyCSV(40), byte(','))
	n := normalizer(f, hashing.Options{DefaultCountry: "US", PassThroughHashed: true})
	f.Fuzz(func(t *testing.T, in string, delim byte) {
		opts := hashing.ReaderOptions{IgnoreUnknown: true, MaxLineBytes: 64, Delimiter: rune(delim)}
		if _, err := hashing.ParseDelimiter(string(rune(delim))); err != nil || delim == 0 {
			opts.Delimiter = 0
		}
		want, got, wantRep, gotRep, wantErr, gotErr := hashBoth(t, in, opts, n, 2)
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr))
		require.Equal(t, want, got)
		require.Equal(t, wantRep, gotRep)
	})
}

// brokenReader serves data, then fails.
type brokenReader struct {
	data string
	err  error
}

func (b *brokenReader) Read(p []byte) (int, error) {
	if b.data == "" {
		return 0, b.err
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

func TestHashRecordsParallelCSVReturnsTheReadErrorAfterTheRowsBeforeIt(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	in.WriteString("email\n")
	for i := range 5000 {
		fmt.Fprintf(&in, "u%d@x.co\n", i)
	}
	boom := fmt.Errorf("disk gone")
	r, err := hashing.NewCSVReader(&brokenReader{data: in.String(), err: boom}, hashing.ReaderOptions{})
	require.NoError(t, err)
	emitted := 0
	err = hashing.HashRecordsParallel(r, normalizer(t, hashing.DefaultOptions()), 2, func(hashing.HashedUser) error {
		emitted++
		return nil
	}, &hashing.Report{})
	require.ErrorIs(t, err, boom)
	require.Equal(t, 5000, emitted, "every row read before the error goes out")
}
