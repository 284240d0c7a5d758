// Package webui serves the worker's runs page: recent runs of every
// pipeline, failures, unreachable accounts and a 30-day chart, read
// through the same store functions as adsync status; the performance page
// (each account's spend, impressions and clicks a day and its top
// campaigns and line items, from sync/report's relations); and mounts
// River's UI under /riverui/. Server-rendered (html/template, inline SVG, no
// JavaScript): the page works with no internet.
//
// It owns the runs and performance pages' handlers and templates. It must not write to the
// database or hold SQL of its own: what it shows comes from the store, report
// and access packages.
package webui
