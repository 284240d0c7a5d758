package hashing

import (
	"fmt"
	"testing"
)

// FuzzPlainEmailIsChecked checks appendEmail's one-pass path against the
// checked rules: same output, same error, for any input.
func FuzzPlainEmailIsChecked(f *testing.F) {
	for _, s := range []string{"a@b.co", "A.B@C.D", "a..b@c.d", "a@b..c", "a@.b", "a@b.", "@b.c", "a@b", "a@@b.c", "a@b@c.d",
		"a b@c.d", "a\x7f@b.c", "é@ü.de", "a@b.c\t", "a.@b.c", "a@b.c.", "x@y.z.w", ".@a.b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotErr := appendEmail([]byte("p"), s)
		want, wantErr := appendEmailChecked([]byte("p"), s)
		if string(got) != string(want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%q: got %q, %v; want %q, %v", s, got, gotErr, want, wantErr)
		}
	})
}
