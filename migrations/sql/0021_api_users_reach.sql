-- reach is how many accounts the user's last complete listing returned
-- (account_users rows not lost). The choice of user for an account weighs
-- it, so a user who reaches every account (an agency's own login) takes a
-- fair share of the work rather than most of it.
ALTER TABLE api_users ADD COLUMN reach integer NOT NULL DEFAULT 0;
