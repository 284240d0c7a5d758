package api

// AppKeyForTest exposes the bearer cache's application key to tests.
var AppKeyForTest = appKey
