-- This database's identity. Every export folder (or object-store prefix) it
-- owns carries it in its marker, so an export never writes into an output
-- another database owns.
CREATE TABLE adsync_database (
    singleton   boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    database_id uuid        NOT NULL DEFAULT gen_random_uuid(),
    created_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO adsync_database DEFAULT VALUES;

-- Every output this database exports to, by the id in the output's marker.
CREATE TABLE export_outputs (
    output_id  uuid        PRIMARY KEY,
    location   text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    adopted    boolean     NOT NULL DEFAULT false
);

-- Incremental state is per output: a new output gets every row, and two
-- outputs fed by one database are each complete. The state kept per
-- database before this cannot say which output it describes, so it goes;
-- the first export into each output writes everything.
DELETE FROM export_state;
ALTER TABLE export_state DROP CONSTRAINT export_state_pkey;
ALTER TABLE export_state ADD COLUMN output_id uuid NOT NULL REFERENCES export_outputs (output_id);
ALTER TABLE export_state ADD PRIMARY KEY (output_id, table_name);

-- Files committed before outputs had ids keep a null output_id.
ALTER TABLE export_files ADD COLUMN output_id uuid REFERENCES export_outputs (output_id);
CREATE INDEX export_files_output ON export_files (output_id, run_id);
