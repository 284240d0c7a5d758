// Package mcp is adsync's read-only Model Context Protocol server: the
// tools a desktop assistant calls to read what adsync stored (accounts,
// performance from the report relations, entities, runs, audiences and the
// metric catalogue). adsync mcp serves it on standard input and output,
// the worker at /mcp over streamable HTTP.
//
// Every tool reads in a READ ONLY transaction with a statement timeout and
// returns at most a row cap of rows, saying so when it cut some; no tool
// takes SQL text. Bad arguments are tool errors (isError) naming what is
// allowed, never protocol failures.
//
// It owns the tools and their read-only queries, no table. It must not
// write, take SQL text from a client, answer a secret (recorded errors go
// through store.Redact), or keep report SQL of its own: performance reads
// through package report, as adsync report does.
package mcp
