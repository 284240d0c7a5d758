package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"
)

// CallbackListener catches, on a loopback address, the browser's redirect
// that ends the three-legged flow's authorization step: it carries the
// request token and its verifier, or the token the user denied.
type CallbackListener struct {
	// URL is the callback URL to send as oauth_callback:
	// http://127.0.0.1:PORT/callback.
	URL     string
	srv     *http.Server
	results chan callbackResult
}

type callbackResult struct {
	token, verifier string
	denied          bool
}

// ListenForCallback listens on 127.0.0.1:port (0 picks a free port) until
// Close.
func ListenForCallback(port int) (*CallbackListener, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listening for the callback: %w", err)
	}
	c := &CallbackListener{
		URL:     "http://" + l.Addr().String() + "/callback",
		results: make(chan callbackResult, 8),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", c.handle)
	c.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = c.srv.Serve(l) }()
	return c, nil
}

func (c *CallbackListener) handle(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	res := callbackResult{token: q.Get("oauth_token"), verifier: q.Get("oauth_verifier"), denied: q.Has("denied")}
	if res.denied {
		res.token = q.Get("denied") // the service names the denied request token
	}
	if !res.denied && (res.token == "" || res.verifier == "") {
		http.Error(w, "missing oauth_token or oauth_verifier", http.StatusBadRequest)
		return
	}
	msg := "adsync is authorized. You can close this window."
	if res.denied {
		msg = "Authorization was denied. You can close this window."
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>adsync</title></head><body><p>%s</p></body></html>\n", msg)
	select {
	case c.results <- res:
	default: // a result is already waiting; later redirects change nothing
	}
}

// Wait returns the verifier of the redirect for requestToken, skipping the
// stale redirects of other attempts, until ctx ends.
func (c *CallbackListener) Wait(ctx context.Context, requestToken string) (string, error) {
	for {
		select {
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
				return "", errors.New("timed out waiting for the browser's redirect (see --timeout)")
			}
			return "", context.Cause(ctx)
		case res := <-c.results:
			if res.denied && (res.token == "" || res.token == requestToken) {
				return "", errors.New("the user denied the authorization")
			}
			if res.token != requestToken {
				// A stale redirect of another attempt: keep waiting for ours.
				continue
			}
			return res.verifier, nil
		}
	}
}

// Close stops listening.
func (c *CallbackListener) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = c.srv.Shutdown(ctx)
}
