// Package posts hydrates v2 posts through GET /2/posts: it asks for every
// field adsync stores, in requests of at most 100 ids under the app-only
// bearer token, and stores posts, their media and authors, their lookup
// status and a daily snapshot of their public metrics.
//
// It owns the posts' fields, requests and tables. It must not call River (jobs
// runs it) and must not send a request except through package api's client.
package posts
