package hashing_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
)

// benchEmails are raw emails as a CRM exports them: mixed case, padded.
var benchEmails = func() []string {
	v := make([]string, 4096)
	for i := range v {
		v[i] = fmt.Sprintf("  First.Last%d@Example-Company%d.COM ", i, i%97)
	}
	return v
}()

// BenchmarkBareSHA256Hex is the baseline of BenchmarkNormalizeHashEmail: the
// same values hashed and hex-encoded with no normalization at all.
func BenchmarkBareSHA256Hex(b *testing.B) {
	b.ReportAllocs()
	var sink string
	for i := 0; b.Loop(); i++ {
		sum := sha256.Sum256([]byte(benchEmails[i%len(benchEmails)]))
		sink = hex.EncodeToString(sum[:])
	}
	_ = sink
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ids/s")
}

func BenchmarkNormalizeHashEmail(b *testing.B) {
	n := normalizer(b, hashing.DefaultOptions())
	b.ReportAllocs()
	var sink string
	for i := 0; b.Loop(); i++ {
		h, _, err := n.Hash(hashing.TypeEmail, benchEmails[i%len(benchEmails)])
		if err != nil {
			b.Fatal(err)
		}
		sink = h
	}
	_ = sink
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ids/s")
}

func BenchmarkNormalizeHashPhone(b *testing.B) {
	n := normalizer(b, hashing.Options{DefaultCountry: "US"})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, _, err := n.Hash(hashing.TypePhoneNumber, fmt.Sprintf("(415) 555-%04d", i%10000)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ids/s")
}

// BenchmarkCSVToUsers measures a file's way to upload-ready JSON: CSV
// parsing, normalization, hashing and the user objects, on one goroutine.
func BenchmarkCSVToUsers(b *testing.B) {
	benchCSVToUsers(b, func(r hashing.RecordReader, n *hashing.Normalizer, emit func(hashing.HashedUser) error, rep *hashing.Report) error {
		return hashing.HashRecords(r, n, emit, rep)
	})
}

// BenchmarkCSVToUsersParallel is BenchmarkCSVToUsers with one hashing
// worker per CPU, as adsync audience hash runs it.
func BenchmarkCSVToUsersParallel(b *testing.B) {
	benchCSVToUsers(b, func(r hashing.RecordReader, n *hashing.Normalizer, emit func(hashing.HashedUser) error, rep *hashing.Report) error {
		return hashing.HashRecordsParallel(r, n, runtime.GOMAXPROCS(0), emit, rep)
	})
}

func benchCSVToUsers(b *testing.B, run func(hashing.RecordReader, *hashing.Normalizer, func(hashing.HashedUser) error, *hashing.Report) error) {
	var file bytes.Buffer
	file.WriteString("email,phone,external_id\n")
	const rows = 20000
	for i := range rows {
		fmt.Fprintf(&file, "User%d@Example.com,+1 415 555 %04d,crm-%d\n", i, i%10000, i)
	}
	data := file.Bytes()
	n := normalizer(b, hashing.Options{DefaultCountry: "US", PassThroughHashed: true})
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	var out []byte
	for b.Loop() {
		r, err := hashing.NewCSVReader(bytes.NewReader(data), hashing.ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var report hashing.Report
		err = run(r, n, func(u hashing.HashedUser) error {
			out = append(u.AppendJSON(out[:0]), '\n')
			_, err := io.Discard.Write(out)
			return err
		}, &report)
		if err != nil || report.RowsEmitted != rows {
			b.Fatal(err, report.RowsEmitted)
		}
	}
	b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCSVToUsersEmailOnly is BenchmarkCSVToUsers without phone numbers,
// whose parsing dominates the mixed file.
func BenchmarkCSVToUsersEmailOnly(b *testing.B) {
	var file strings.Builder
	file.WriteString("email\n")
	const rows = 20000
	for i := range rows {
		fmt.Fprintf(&file, "User%d@Example.com\n", i)
	}
	data := file.String()
	n := normalizer(b, hashing.DefaultOptions())
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		r, err := hashing.NewCSVReader(strings.NewReader(data), hashing.ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var report hashing.Report
		if err := hashing.HashRecords(r, n, func(u hashing.HashedUser) error {
			out = append(u.AppendJSON(out[:0]), '\n')
			return nil
		}, &report); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
}
