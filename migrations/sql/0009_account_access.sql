-- An account that the user's account list no longer returns, without a
-- deleted marker (access withdrawn, account closed), is no longer
-- accessible: every run lists the accounts completely and sets
-- inaccessible_since then, clears it when the list returns the account
-- again, and fans out only to accessible accounts. The account's records
-- are kept.
ALTER TABLE accounts ADD COLUMN inaccessible_since timestamptz;
