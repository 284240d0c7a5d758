package api

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func answer(body string) *http.Response {
	return &http.Response{StatusCode: 200, ContentLength: -1, Body: io.NopCloser(strings.NewReader(body))}
}

func TestABodyIsReadIntoAKeptBufferOnlyWhenItFits(t *testing.T) {
	c := &Client{}
	big := make([]byte, 0, 4096)
	got, err := c.readBody("GET /x", answer(`{"data":[1,2,3]}`), &big)
	require.NoError(t, err)
	require.Equal(t, `{"data":[1,2,3]}`, string(got))
	require.Same(t, &big[:1][0], &got[0], "read into the kept buffer")

	// The endpoint's last body was 16 bytes: a buffer too small for the
	// next one is not used.
	small := make([]byte, 0, 8)
	got, err = c.readBody("GET /x", answer(`{"data":[4,5,6]}`), &small)
	require.NoError(t, err)
	require.Equal(t, `{"data":[4,5,6]}`, string(got))
	require.NotSame(t, &small[:1][0], &got[0])
}

func TestReleaseHandsBackOnlyAKeptBuffer(t *testing.T) {
	plain := &Response{Body: []byte("kept by its reader")}
	plain.Release()
	require.Equal(t, "kept by its reader", string(plain.Body), "a response read without ReuseBody keeps its body")

	buf := make([]byte, 0, 64)
	r := &Response{Body: append(buf, "page"...), buf: &buf}
	r.Release()
	require.Nil(t, r.Body)
	require.Nil(t, r.buf)
	r.Release() // twice: nothing more to hand back
}
