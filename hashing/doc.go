// Package hashing turns customer identifiers into the service's audience user
// objects: it reads CSV and NDJSON files as a stream and Parquet files a row
// group at a time (any other input, such as a query's result, comes as a
// RecordReader too), normalizes every value by the service's matching rules,
// and hashes it with SHA-256.
//
// It owns the identifier rules (normalization and hashing) and the record
// readers. It must not use the network or a database: its input is a reader,
// its output hashed users.
package hashing
