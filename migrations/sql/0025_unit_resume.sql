-- Where a unit resumes: the cursor (ads.Cursor as JSON) of the last page
-- it stored, written by the statement that counts the page in the unit's
-- progress, so that a retry resumes exactly after what was counted. A page
-- found unchanged by its print is then one statement, with no transaction
-- around it. NULL: the unit starts from its first page.
ALTER TABLE sync_run_units ADD COLUMN resume jsonb;
