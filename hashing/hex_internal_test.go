package hashing

import (
	"encoding/hex"
	"testing"
)

func TestAppendHexIsEncodingHex(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for _, b := range [][]byte{nil, {0}, {0xff, 0x0f}, all} {
		prefix := []byte("x")
		if got, want := string(appendHex(prefix, b)), "x"+hex.EncodeToString(b); got != want {
			t.Fatalf("appendHex(%x) = %q, want %q", b, got, want)
		}
	}
}
