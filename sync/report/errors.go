package report

import "errors"

// ErrInput marks a request that can never be answered as asked: an unknown
// level, format or account, a date that is not one, a span that ends before
// it starts. adsync report exits 2 on it.
var ErrInput = errors.New("report")
