-- The ids arrays of page prints and seen pages are only ever read whole
-- (unnest), never searched by element: no plan uses their statistics.
-- ANALYZE computed them anyway, the most common of a sample's ids and their
-- histogram, which was nearly all of analyzing these tables (a few hundred
-- pages of 1,000 ids: 250 ms against under 1 ms without them), and
-- autovacuum analyzes sync_page_prints after about every full run, whose
-- units rewrite each print row they find again.
ALTER TABLE sync_page_prints ALTER COLUMN ids SET STATISTICS 0;
ALTER TABLE sync_unit_seen_pages ALTER COLUMN ids SET STATISTICS 0;
