-- Page prints: what an unchanged re-sync recognises without reading its
-- records. A print is the SHA-256 of one listed page's raw records (and the
-- part it was listed in); a complete unit's end keeps, per (account,
-- entity), the prints of the pages it listed with the ids each held. The
-- next complete unit of that (account, entity) finds a page whose print is
-- kept unchanged, so it neither decodes nor looks up its records; when
-- every kept page was found again and none differed, the sweep has nothing
-- to tombstone and is skipped.
--
-- The prints speak for the table only while nothing else wrote to it:
-- sync_bookmarks.prints_run is the run whose unit kept them, and every unit
-- of the entity clears it as it starts (before it writes), so prints are
-- trusted only when the last unit of the (account, entity) to start was a
-- complete one that finished. Rows deleted by hand (DELETE, TRUNCATE: the
-- sync itself never deletes an entity's rows, it tombstones them) distrust
-- every print of the table, through the triggers below.
CREATE TABLE sync_page_prints (
    account_id  text        NOT NULL,
    entity      text        NOT NULL,
    print       bytea       NOT NULL,
    ids         text[]      NOT NULL,
    records     integer     NOT NULL,
    max_updated timestamptz,
    -- the run that last listed the page: the unit that kept the prints, or
    -- the running unit once it found the page again
    seen_run    bigint      NOT NULL,
    PRIMARY KEY (account_id, entity, print)
);

ALTER TABLE sync_unit_seen_pages
    ADD COLUMN print bytea,
    ADD COLUMN records integer,
    ADD COLUMN max_updated timestamptz;

ALTER TABLE sync_bookmarks ADD COLUMN prints_run bigint;

-- Of a unit's pages, those found unchanged by their print.
ALTER TABLE sync_run_units ADD COLUMN known_pages integer NOT NULL DEFAULT 0;

CREATE FUNCTION adsync_distrust_prints() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sync_bookmarks SET prints_run = NULL WHERE entity = TG_TABLE_NAME AND prints_run IS NOT NULL;
    RETURN NULL;
END $$;

-- Every table of an entity's rows (an account_id, a doc_hash and a deleted
-- flag); a later migration creating one adds its trigger the same way.
DO $$
DECLARE t text;
BEGIN
    FOR t IN
        SELECT c.table_name FROM information_schema.columns c
        JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
        WHERE c.table_schema = current_schema() AND tb.table_type = 'BASE TABLE'
          AND c.column_name IN ('account_id', 'doc_hash', 'deleted')
        GROUP BY c.table_name HAVING count(*) = 3
    LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION adsync_distrust_prints()',
            t || '_distrust_prints', t);
    END LOOP;
END $$;
