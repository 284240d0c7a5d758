// Package insights fetches keyword insights (GET /12/insights/keywords/search)
// for configured keyword sets: it splits a time range into windows the
// service accepts, splits a set's keywords into requests within the keyword
// limit, and stores each window's related keywords and volume series.
//
// It owns the keyword insights' windows, requests and tables. It must not call
// River (jobs runs it) and must not send a request except through package api's
// client.
package insights
