-- What a complete unit still running has listed, for the sweep at its end:
-- one row per stored page holding the page's ids, instead of one row per id
-- (sync_unit_seen), so storing a page writes one row. Emptied when the unit
-- finishes, as before. The ids of units running during the upgrade are
-- carried over, so their sweeps see them.
CREATE TABLE sync_unit_seen_pages (
    run_id     bigint NOT NULL,
    account_id text   NOT NULL,
    entity     text   NOT NULL,
    ids        text[] NOT NULL
);
CREATE INDEX sync_unit_seen_pages_unit_idx ON sync_unit_seen_pages (run_id, account_id, entity);

INSERT INTO sync_unit_seen_pages (run_id, account_id, entity, ids)
SELECT run_id, account_id, entity, array_agg(id ORDER BY id)
FROM sync_unit_seen GROUP BY run_id, account_id, entity;

DROP TABLE sync_unit_seen;
