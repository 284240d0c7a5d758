// Package ads syncs the advertising interface's entities into Postgres: a
// registry of entities (endpoint, scope, typed columns), the paging of one
// (account, entity) unit, and the SQL that stores them.
//
// It owns the entities' registry, the sync units' paging and the entity tables'
// SQL. It must not call River (jobs fans its units out) and must not send a
// request except through package api's client.
package ads
