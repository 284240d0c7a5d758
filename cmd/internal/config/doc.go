// Package config loads adsync's configuration: flags over environment
// (ADSYNC_*) over an optional YAML file over built-in defaults.
//
// It owns the configuration's names, defaults and validation, and the ADSYNC_*
// environment names adsync reads. It must not connect to a database or the
// service, and must not print or return a secret's value (mask.go masks them).
package config
