-- The history of every entity table (issue 47): every version of each
-- record the sync stored, as <table>_history, a view with the table's
-- columns plus valid_from and valid_to (NULL for the current version).
-- The current versions are the table's rows themselves; the versions a
-- content change closed are kept in <table>_history_closed, written by a
-- trigger in the statement that changes the row. A fresh load writes no
-- history; a changed record writes one past version; an unchanged re-sync
-- writes nothing. Every existing row is its record's first version as soon
-- as its table has valid_from (NULL: the version began at api_updated_at,
-- or first_seen_at when the service gave none). The DDL below the marker
-- is generated from sync/ads's registry (Entity.HistorySQL; a test keeps
-- them equal: go test ./sync/ads -run TestHistoryMigration -update).

-- Entity histories (generated).
ALTER TABLE accounts ADD COLUMN valid_from timestamptz;
CREATE TABLE accounts_history_closed (
    id             text        NOT NULL,
    name           text,
    business_name  text,
    timezone       text,
    timezone_switch_at timestamptz,
    business_id    text,
    approval_status text,
    industry_type  text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX accounts_history_closed_id_idx ON accounts_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION accounts_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO accounts_history_closed (id, name, business_name, timezone, timezone_switch_at, business_id, approval_status, industry_type, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.business_name, OLD.timezone, OLD.timezone_switch_at, OLD.business_id, OLD.approval_status, OLD.industry_type, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW accounts_history AS
SELECT t.id, t.name, t.business_name, t.timezone, t.timezone_switch_at, t.business_id, t.approval_status, t.industry_type, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM accounts t
UNION ALL
SELECT id, name, business_name, timezone, timezone_switch_at, business_id, approval_status, industry_type, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM accounts_history_closed;
CREATE TRIGGER accounts_history BEFORE UPDATE ON accounts FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION accounts_history_close();

ALTER TABLE account_user_access ADD COLUMN valid_from timestamptz;
CREATE TABLE account_user_access_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    user_id        text,
    permissions    text[],
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX account_user_access_history_closed_id_idx ON account_user_access_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION account_user_access_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO account_user_access_history_closed (account_id, id, user_id, permissions, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.user_id, OLD.permissions, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW account_user_access_history AS
SELECT t.account_id, t.id, t.user_id, t.permissions, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM account_user_access t
UNION ALL
SELECT account_id, id, user_id, permissions, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM account_user_access_history_closed;
CREATE TRIGGER account_user_access_history BEFORE UPDATE ON account_user_access FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION account_user_access_history_close();

ALTER TABLE funding_instruments ADD COLUMN valid_from timestamptz;
CREATE TABLE funding_instruments_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    description    text,
    type           text,
    currency       text,
    start_time     timestamptz,
    end_time       timestamptz,
    credit_limit_local_micro bigint,
    credit_remaining_local_micro bigint,
    funded_amount_local_micro bigint,
    entity_status  text,
    able_to_fund   boolean,
    reasons_not_able_to_fund text[],
    io_header      text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX funding_instruments_history_closed_id_idx ON funding_instruments_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION funding_instruments_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO funding_instruments_history_closed (account_id, id, name, description, type, currency, start_time, end_time, credit_limit_local_micro, credit_remaining_local_micro, funded_amount_local_micro, entity_status, able_to_fund, reasons_not_able_to_fund, io_header, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.description, OLD.type, OLD.currency, OLD.start_time, OLD.end_time, OLD.credit_limit_local_micro, OLD.credit_remaining_local_micro, OLD.funded_amount_local_micro, OLD.entity_status, OLD.able_to_fund, OLD.reasons_not_able_to_fund, OLD.io_header, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW funding_instruments_history AS
SELECT t.account_id, t.id, t.name, t.description, t.type, t.currency, t.start_time, t.end_time, t.credit_limit_local_micro, t.credit_remaining_local_micro, t.funded_amount_local_micro, t.entity_status, t.able_to_fund, t.reasons_not_able_to_fund, t.io_header, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM funding_instruments t
UNION ALL
SELECT account_id, id, name, description, type, currency, start_time, end_time, credit_limit_local_micro, credit_remaining_local_micro, funded_amount_local_micro, entity_status, able_to_fund, reasons_not_able_to_fund, io_header, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM funding_instruments_history_closed;
CREATE TRIGGER funding_instruments_history BEFORE UPDATE ON funding_instruments FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION funding_instruments_history_close();

ALTER TABLE campaigns ADD COLUMN valid_from timestamptz;
CREATE TABLE campaigns_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    funding_instrument_id text,
    budget_optimization text,
    daily_budget_amount_local_micro bigint,
    total_budget_amount_local_micro bigint,
    entity_status  text,
    effective_status text,
    servable       boolean,
    reasons_not_servable text[],
    standard_delivery boolean,
    purchase_order_number text,
    duration_in_days bigint,
    frequency_cap  bigint,
    currency       text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX campaigns_history_closed_id_idx ON campaigns_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION campaigns_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO campaigns_history_closed (account_id, id, name, funding_instrument_id, budget_optimization, daily_budget_amount_local_micro, total_budget_amount_local_micro, entity_status, effective_status, servable, reasons_not_servable, standard_delivery, purchase_order_number, duration_in_days, frequency_cap, currency, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.funding_instrument_id, OLD.budget_optimization, OLD.daily_budget_amount_local_micro, OLD.total_budget_amount_local_micro, OLD.entity_status, OLD.effective_status, OLD.servable, OLD.reasons_not_servable, OLD.standard_delivery, OLD.purchase_order_number, OLD.duration_in_days, OLD.frequency_cap, OLD.currency, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW campaigns_history AS
SELECT t.account_id, t.id, t.name, t.funding_instrument_id, t.budget_optimization, t.daily_budget_amount_local_micro, t.total_budget_amount_local_micro, t.entity_status, t.effective_status, t.servable, t.reasons_not_servable, t.standard_delivery, t.purchase_order_number, t.duration_in_days, t.frequency_cap, t.currency, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM campaigns t
UNION ALL
SELECT account_id, id, name, funding_instrument_id, budget_optimization, daily_budget_amount_local_micro, total_budget_amount_local_micro, entity_status, effective_status, servable, reasons_not_servable, standard_delivery, purchase_order_number, duration_in_days, frequency_cap, currency, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM campaigns_history_closed;
CREATE TRIGGER campaigns_history BEFORE UPDATE ON campaigns FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION campaigns_history_close();

ALTER TABLE line_items ADD COLUMN valid_from timestamptz;
CREATE TABLE line_items_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    campaign_id    text,
    objective      text,
    product_type   text,
    placements     text[],
    bid_amount_local_micro bigint,
    entity_status  text,
    start_time     timestamptz,
    end_time       timestamptz,
    currency       text,
    funding_instrument_id text,
    goal           text,
    bid_strategy   text,
    pay_by         text,
    target_cpa_local_micro bigint,
    daily_budget_amount_local_micro bigint,
    total_budget_amount_local_micro bigint,
    standard_delivery boolean,
    frequency_cap  bigint,
    duration_in_days bigint,
    advertiser_user_id text,
    advertiser_domain text,
    categories     text[],
    primary_web_event_tag text,
    android_app_store_identifier text,
    ios_app_store_identifier text,
    automatic_post_promotion jsonb,
    creative_source text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX line_items_history_closed_id_idx ON line_items_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION line_items_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO line_items_history_closed (account_id, id, name, campaign_id, objective, product_type, placements, bid_amount_local_micro, entity_status, start_time, end_time, currency, funding_instrument_id, goal, bid_strategy, pay_by, target_cpa_local_micro, daily_budget_amount_local_micro, total_budget_amount_local_micro, standard_delivery, frequency_cap, duration_in_days, advertiser_user_id, advertiser_domain, categories, primary_web_event_tag, android_app_store_identifier, ios_app_store_identifier, automatic_post_promotion, creative_source, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.campaign_id, OLD.objective, OLD.product_type, OLD.placements, OLD.bid_amount_local_micro, OLD.entity_status, OLD.start_time, OLD.end_time, OLD.currency, OLD.funding_instrument_id, OLD.goal, OLD.bid_strategy, OLD.pay_by, OLD.target_cpa_local_micro, OLD.daily_budget_amount_local_micro, OLD.total_budget_amount_local_micro, OLD.standard_delivery, OLD.frequency_cap, OLD.duration_in_days, OLD.advertiser_user_id, OLD.advertiser_domain, OLD.categories, OLD.primary_web_event_tag, OLD.android_app_store_identifier, OLD.ios_app_store_identifier, OLD.automatic_post_promotion, OLD.creative_source, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW line_items_history AS
SELECT t.account_id, t.id, t.name, t.campaign_id, t.objective, t.product_type, t.placements, t.bid_amount_local_micro, t.entity_status, t.start_time, t.end_time, t.currency, t.funding_instrument_id, t.goal, t.bid_strategy, t.pay_by, t.target_cpa_local_micro, t.daily_budget_amount_local_micro, t.total_budget_amount_local_micro, t.standard_delivery, t.frequency_cap, t.duration_in_days, t.advertiser_user_id, t.advertiser_domain, t.categories, t.primary_web_event_tag, t.android_app_store_identifier, t.ios_app_store_identifier, t.automatic_post_promotion, t.creative_source, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM line_items t
UNION ALL
SELECT account_id, id, name, campaign_id, objective, product_type, placements, bid_amount_local_micro, entity_status, start_time, end_time, currency, funding_instrument_id, goal, bid_strategy, pay_by, target_cpa_local_micro, daily_budget_amount_local_micro, total_budget_amount_local_micro, standard_delivery, frequency_cap, duration_in_days, advertiser_user_id, advertiser_domain, categories, primary_web_event_tag, android_app_store_identifier, ios_app_store_identifier, automatic_post_promotion, creative_source, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM line_items_history_closed;
CREATE TRIGGER line_items_history BEFORE UPDATE ON line_items FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION line_items_history_close();

ALTER TABLE cards ADD COLUMN valid_from timestamptz;
CREATE TABLE cards_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    card_uri       text,
    card_type      text,
    components     jsonb,
    slides         jsonb,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cards_history_closed_id_idx ON cards_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION cards_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO cards_history_closed (account_id, id, name, card_uri, card_type, components, slides, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.card_uri, OLD.card_type, OLD.components, OLD.slides, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW cards_history AS
SELECT t.account_id, t.id, t.name, t.card_uri, t.card_type, t.components, t.slides, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM cards t
UNION ALL
SELECT account_id, id, name, card_uri, card_type, components, slides, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM cards_history_closed;
CREATE TRIGGER cards_history BEFORE UPDATE ON cards FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION cards_history_close();

ALTER TABLE cards_poll ADD COLUMN valid_from timestamptz;
CREATE TABLE cards_poll_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    card_uri       text,
    card_type      text,
    first_choice   text,
    second_choice  text,
    third_choice   text,
    fourth_choice  text,
    duration_in_minutes bigint,
    start_time     timestamptz,
    end_time       timestamptz,
    media_key      text,
    video_poster_url text,
    video_url      text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cards_poll_history_closed_id_idx ON cards_poll_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION cards_poll_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO cards_poll_history_closed (account_id, id, name, card_uri, card_type, first_choice, second_choice, third_choice, fourth_choice, duration_in_minutes, start_time, end_time, media_key, video_poster_url, video_url, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.card_uri, OLD.card_type, OLD.first_choice, OLD.second_choice, OLD.third_choice, OLD.fourth_choice, OLD.duration_in_minutes, OLD.start_time, OLD.end_time, OLD.media_key, OLD.video_poster_url, OLD.video_url, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW cards_poll_history AS
SELECT t.account_id, t.id, t.name, t.card_uri, t.card_type, t.first_choice, t.second_choice, t.third_choice, t.fourth_choice, t.duration_in_minutes, t.start_time, t.end_time, t.media_key, t.video_poster_url, t.video_url, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM cards_poll t
UNION ALL
SELECT account_id, id, name, card_uri, card_type, first_choice, second_choice, third_choice, fourth_choice, duration_in_minutes, start_time, end_time, media_key, video_poster_url, video_url, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM cards_poll_history_closed;
CREATE TRIGGER cards_poll_history BEFORE UPDATE ON cards_poll FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION cards_poll_history_close();

ALTER TABLE cards_image_conversation ADD COLUMN valid_from timestamptz;
CREATE TABLE cards_image_conversation_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    card_uri       text,
    card_type      text,
    first_cta      text,
    first_cta_post text,
    second_cta     text,
    second_cta_post text,
    third_cta      text,
    third_cta_post text,
    fourth_cta     text,
    fourth_cta_post text,
    title          text,
    thank_you_text text,
    thank_you_url  text,
    media_key      text,
    unlocked_image_media_key text,
    unlocked_video_media_key text,
    media_url      text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cards_image_conversation_history_closed_id_idx ON cards_image_conversation_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION cards_image_conversation_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO cards_image_conversation_history_closed (account_id, id, name, card_uri, card_type, first_cta, first_cta_post, second_cta, second_cta_post, third_cta, third_cta_post, fourth_cta, fourth_cta_post, title, thank_you_text, thank_you_url, media_key, unlocked_image_media_key, unlocked_video_media_key, media_url, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.card_uri, OLD.card_type, OLD.first_cta, OLD.first_cta_post, OLD.second_cta, OLD.second_cta_post, OLD.third_cta, OLD.third_cta_post, OLD.fourth_cta, OLD.fourth_cta_post, OLD.title, OLD.thank_you_text, OLD.thank_you_url, OLD.media_key, OLD.unlocked_image_media_key, OLD.unlocked_video_media_key, OLD.media_url, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW cards_image_conversation_history AS
SELECT t.account_id, t.id, t.name, t.card_uri, t.card_type, t.first_cta, t.first_cta_post, t.second_cta, t.second_cta_post, t.third_cta, t.third_cta_post, t.fourth_cta, t.fourth_cta_post, t.title, t.thank_you_text, t.thank_you_url, t.media_key, t.unlocked_image_media_key, t.unlocked_video_media_key, t.media_url, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM cards_image_conversation t
UNION ALL
SELECT account_id, id, name, card_uri, card_type, first_cta, first_cta_post, second_cta, second_cta_post, third_cta, third_cta_post, fourth_cta, fourth_cta_post, title, thank_you_text, thank_you_url, media_key, unlocked_image_media_key, unlocked_video_media_key, media_url, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM cards_image_conversation_history_closed;
CREATE TRIGGER cards_image_conversation_history BEFORE UPDATE ON cards_image_conversation FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION cards_image_conversation_history_close();

ALTER TABLE cards_video_conversation ADD COLUMN valid_from timestamptz;
CREATE TABLE cards_video_conversation_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    card_uri       text,
    card_type      text,
    first_cta      text,
    first_cta_post text,
    second_cta     text,
    second_cta_post text,
    third_cta      text,
    third_cta_post text,
    fourth_cta     text,
    fourth_cta_post text,
    title          text,
    thank_you_text text,
    thank_you_url  text,
    media_key      text,
    unlocked_image_media_key text,
    unlocked_video_media_key text,
    poster_media_key text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cards_video_conversation_history_closed_id_idx ON cards_video_conversation_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION cards_video_conversation_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO cards_video_conversation_history_closed (account_id, id, name, card_uri, card_type, first_cta, first_cta_post, second_cta, second_cta_post, third_cta, third_cta_post, fourth_cta, fourth_cta_post, title, thank_you_text, thank_you_url, media_key, unlocked_image_media_key, unlocked_video_media_key, poster_media_key, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.card_uri, OLD.card_type, OLD.first_cta, OLD.first_cta_post, OLD.second_cta, OLD.second_cta_post, OLD.third_cta, OLD.third_cta_post, OLD.fourth_cta, OLD.fourth_cta_post, OLD.title, OLD.thank_you_text, OLD.thank_you_url, OLD.media_key, OLD.unlocked_image_media_key, OLD.unlocked_video_media_key, OLD.poster_media_key, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW cards_video_conversation_history AS
SELECT t.account_id, t.id, t.name, t.card_uri, t.card_type, t.first_cta, t.first_cta_post, t.second_cta, t.second_cta_post, t.third_cta, t.third_cta_post, t.fourth_cta, t.fourth_cta_post, t.title, t.thank_you_text, t.thank_you_url, t.media_key, t.unlocked_image_media_key, t.unlocked_video_media_key, t.poster_media_key, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM cards_video_conversation t
UNION ALL
SELECT account_id, id, name, card_uri, card_type, first_cta, first_cta_post, second_cta, second_cta_post, third_cta, third_cta_post, fourth_cta, fourth_cta_post, title, thank_you_text, thank_you_url, media_key, unlocked_image_media_key, unlocked_video_media_key, poster_media_key, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM cards_video_conversation_history_closed;
CREATE TRIGGER cards_video_conversation_history BEFORE UPDATE ON cards_video_conversation FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION cards_video_conversation_history_close();

ALTER TABLE account_media ADD COLUMN valid_from timestamptz;
CREATE TABLE account_media_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    creative_type  text,
    video_id       text,
    media_url      text,
    media_key      text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX account_media_history_closed_id_idx ON account_media_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION account_media_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO account_media_history_closed (account_id, id, creative_type, video_id, media_url, media_key, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.creative_type, OLD.video_id, OLD.media_url, OLD.media_key, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW account_media_history AS
SELECT t.account_id, t.id, t.creative_type, t.video_id, t.media_url, t.media_key, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM account_media t
UNION ALL
SELECT account_id, id, creative_type, video_id, media_url, media_key, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM account_media_history_closed;
CREATE TRIGGER account_media_history BEFORE UPDATE ON account_media FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION account_media_history_close();

ALTER TABLE media_creatives ADD COLUMN valid_from timestamptz;
CREATE TABLE media_creatives_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    account_media_id text,
    campaign_id    text,
    landing_url    text,
    serving_status text,
    entity_status  text,
    approval_status text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX media_creatives_history_closed_id_idx ON media_creatives_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION media_creatives_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO media_creatives_history_closed (account_id, id, line_item_id, account_media_id, campaign_id, landing_url, serving_status, entity_status, approval_status, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.line_item_id, OLD.account_media_id, OLD.campaign_id, OLD.landing_url, OLD.serving_status, OLD.entity_status, OLD.approval_status, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW media_creatives_history AS
SELECT t.account_id, t.id, t.line_item_id, t.account_media_id, t.campaign_id, t.landing_url, t.serving_status, t.entity_status, t.approval_status, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM media_creatives t
UNION ALL
SELECT account_id, id, line_item_id, account_media_id, campaign_id, landing_url, serving_status, entity_status, approval_status, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM media_creatives_history_closed;
CREATE TRIGGER media_creatives_history BEFORE UPDATE ON media_creatives FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION media_creatives_history_close();

ALTER TABLE promoted_accounts ADD COLUMN valid_from timestamptz;
CREATE TABLE promoted_accounts_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    user_id        text,
    entity_status  text,
    approval_status text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX promoted_accounts_history_closed_id_idx ON promoted_accounts_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION promoted_accounts_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO promoted_accounts_history_closed (account_id, id, line_item_id, user_id, entity_status, approval_status, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.line_item_id, OLD.user_id, OLD.entity_status, OLD.approval_status, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW promoted_accounts_history AS
SELECT t.account_id, t.id, t.line_item_id, t.user_id, t.entity_status, t.approval_status, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM promoted_accounts t
UNION ALL
SELECT account_id, id, line_item_id, user_id, entity_status, approval_status, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM promoted_accounts_history_closed;
CREATE TRIGGER promoted_accounts_history BEFORE UPDATE ON promoted_accounts FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION promoted_accounts_history_close();

ALTER TABLE promoted_posts ADD COLUMN valid_from timestamptz;
CREATE TABLE promoted_posts_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    post_id        text,
    entity_status  text,
    approval_status text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX promoted_posts_history_closed_id_idx ON promoted_posts_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION promoted_posts_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO promoted_posts_history_closed (account_id, id, line_item_id, post_id, entity_status, approval_status, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.line_item_id, OLD.post_id, OLD.entity_status, OLD.approval_status, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW promoted_posts_history AS
SELECT t.account_id, t.id, t.line_item_id, t.post_id, t.entity_status, t.approval_status, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM promoted_posts t
UNION ALL
SELECT account_id, id, line_item_id, post_id, entity_status, approval_status, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM promoted_posts_history_closed;
CREATE TRIGGER promoted_posts_history BEFORE UPDATE ON promoted_posts FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION promoted_posts_history_close();

ALTER TABLE tracking_tags ADD COLUMN valid_from timestamptz;
CREATE TABLE tracking_tags_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    tracking_tag_type text,
    tracking_tag_url text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tracking_tags_history_closed_id_idx ON tracking_tags_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION tracking_tags_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO tracking_tags_history_closed (account_id, id, line_item_id, tracking_tag_type, tracking_tag_url, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.line_item_id, OLD.tracking_tag_type, OLD.tracking_tag_url, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW tracking_tags_history AS
SELECT t.account_id, t.id, t.line_item_id, t.tracking_tag_type, t.tracking_tag_url, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM tracking_tags t
UNION ALL
SELECT account_id, id, line_item_id, tracking_tag_type, tracking_tag_url, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM tracking_tags_history_closed;
CREATE TRIGGER tracking_tags_history BEFORE UPDATE ON tracking_tags FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION tracking_tags_history_close();

ALTER TABLE targeting_criteria ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    name           text,
    localized_name text,
    targeting_type text,
    targeting_value text,
    operator_type  text,
    location_type  text,
    tailored_audience_expansion boolean,
    tailored_audience_type text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_history_closed_id_idx ON targeting_criteria_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_history_closed (account_id, id, line_item_id, name, localized_name, targeting_type, targeting_value, operator_type, location_type, tailored_audience_expansion, tailored_audience_type, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.line_item_id, OLD.name, OLD.localized_name, OLD.targeting_type, OLD.targeting_value, OLD.operator_type, OLD.location_type, OLD.tailored_audience_expansion, OLD.tailored_audience_type, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_history AS
SELECT t.account_id, t.id, t.line_item_id, t.name, t.localized_name, t.targeting_type, t.targeting_value, t.operator_type, t.location_type, t.tailored_audience_expansion, t.tailored_audience_type, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria t
UNION ALL
SELECT account_id, id, line_item_id, name, localized_name, targeting_type, targeting_value, operator_type, location_type, tailored_audience_expansion, tailored_audience_type, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_history_closed;
CREATE TRIGGER targeting_criteria_history BEFORE UPDATE ON targeting_criteria FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_history_close();

ALTER TABLE posts ADD COLUMN valid_from timestamptz;
CREATE TABLE posts_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    post_type      text,
    name           text,
    text           text,
    user_id        text,
    nullcast       boolean,
    card_uri       text,
    media_keys     text[],
    status         text,
    scheduled_at   timestamptz,
    scheduled_status text,
    completed_at   timestamptz,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX posts_history_closed_id_idx ON posts_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION posts_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO posts_history_closed (account_id, id, post_type, name, text, user_id, nullcast, card_uri, media_keys, status, scheduled_at, scheduled_status, completed_at, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.post_type, OLD.name, OLD.text, OLD.user_id, OLD.nullcast, OLD.card_uri, OLD.media_keys, OLD.status, OLD.scheduled_at, OLD.scheduled_status, OLD.completed_at, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW posts_history AS
SELECT t.account_id, t.id, t.post_type, t.name, t.text, t.user_id, t.nullcast, t.card_uri, t.media_keys, t.status, t.scheduled_at, t.scheduled_status, t.completed_at, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM posts t
UNION ALL
SELECT account_id, id, post_type, name, text, user_id, nullcast, card_uri, media_keys, status, scheduled_at, scheduled_status, completed_at, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM posts_history_closed;
CREATE TRIGGER posts_history BEFORE UPDATE ON posts FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION posts_history_close();

ALTER TABLE account_apps ADD COLUMN valid_from timestamptz;
CREATE TABLE account_apps_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    app_store_identifier text,
    os_type        text,
    conversion_tracking boolean,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX account_apps_history_closed_id_idx ON account_apps_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION account_apps_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO account_apps_history_closed (account_id, id, name, app_store_identifier, os_type, conversion_tracking, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.app_store_identifier, OLD.os_type, OLD.conversion_tracking, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW account_apps_history AS
SELECT t.account_id, t.id, t.name, t.app_store_identifier, t.os_type, t.conversion_tracking, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM account_apps t
UNION ALL
SELECT account_id, id, name, app_store_identifier, os_type, conversion_tracking, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM account_apps_history_closed;
CREATE TRIGGER account_apps_history BEFORE UPDATE ON account_apps FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION account_apps_history_close();

ALTER TABLE promotable_users ADD COLUMN valid_from timestamptz;
CREATE TABLE promotable_users_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    user_id        text,
    promotable_user_type text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX promotable_users_history_closed_id_idx ON promotable_users_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION promotable_users_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO promotable_users_history_closed (account_id, id, user_id, promotable_user_type, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.user_id, OLD.promotable_user_type, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW promotable_users_history AS
SELECT t.account_id, t.id, t.user_id, t.promotable_user_type, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM promotable_users t
UNION ALL
SELECT account_id, id, user_id, promotable_user_type, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM promotable_users_history_closed;
CREATE TRIGGER promotable_users_history BEFORE UPDATE ON promotable_users FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION promotable_users_history_close();

ALTER TABLE scheduled_promoted_posts ADD COLUMN valid_from timestamptz;
CREATE TABLE scheduled_promoted_posts_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    scheduled_post_id text,
    post_id        text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX scheduled_promoted_posts_history_closed_id_idx ON scheduled_promoted_posts_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION scheduled_promoted_posts_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO scheduled_promoted_posts_history_closed (account_id, id, line_item_id, scheduled_post_id, post_id, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.line_item_id, OLD.scheduled_post_id, OLD.post_id, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW scheduled_promoted_posts_history AS
SELECT t.account_id, t.id, t.line_item_id, t.scheduled_post_id, t.post_id, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM scheduled_promoted_posts t
UNION ALL
SELECT account_id, id, line_item_id, scheduled_post_id, post_id, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM scheduled_promoted_posts_history_closed;
CREATE TRIGGER scheduled_promoted_posts_history BEFORE UPDATE ON scheduled_promoted_posts FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION scheduled_promoted_posts_history_close();

ALTER TABLE preroll_call_to_actions ADD COLUMN valid_from timestamptz;
CREATE TABLE preroll_call_to_actions_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    call_to_action text,
    call_to_action_url text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX preroll_call_to_actions_history_closed_id_idx ON preroll_call_to_actions_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION preroll_call_to_actions_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO preroll_call_to_actions_history_closed (account_id, id, line_item_id, call_to_action, call_to_action_url, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.line_item_id, OLD.call_to_action, OLD.call_to_action_url, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW preroll_call_to_actions_history AS
SELECT t.account_id, t.id, t.line_item_id, t.call_to_action, t.call_to_action_url, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM preroll_call_to_actions t
UNION ALL
SELECT account_id, id, line_item_id, call_to_action, call_to_action_url, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM preroll_call_to_actions_history_closed;
CREATE TRIGGER preroll_call_to_actions_history BEFORE UPDATE ON preroll_call_to_actions FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION preroll_call_to_actions_history_close();

ALTER TABLE web_event_tags ADD COLUMN valid_from timestamptz;
CREATE TABLE web_event_tags_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    type           text,
    click_window   bigint,
    view_through_window bigint,
    retargeting_enabled boolean,
    status         text,
    last_tracked_at timestamptz,
    website_tag_id text,
    embed_code     text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX web_event_tags_history_closed_id_idx ON web_event_tags_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION web_event_tags_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO web_event_tags_history_closed (account_id, id, name, type, click_window, view_through_window, retargeting_enabled, status, last_tracked_at, website_tag_id, embed_code, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.type, OLD.click_window, OLD.view_through_window, OLD.retargeting_enabled, OLD.status, OLD.last_tracked_at, OLD.website_tag_id, OLD.embed_code, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW web_event_tags_history AS
SELECT t.account_id, t.id, t.name, t.type, t.click_window, t.view_through_window, t.retargeting_enabled, t.status, t.last_tracked_at, t.website_tag_id, t.embed_code, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM web_event_tags t
UNION ALL
SELECT account_id, id, name, type, click_window, view_through_window, retargeting_enabled, status, last_tracked_at, website_tag_id, embed_code, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM web_event_tags_history_closed;
CREATE TRIGGER web_event_tags_history BEFORE UPDATE ON web_event_tags FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION web_event_tags_history_close();

ALTER TABLE app_event_tags ADD COLUMN valid_from timestamptz;
CREATE TABLE app_event_tags_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    app_store_identifier text,
    os_type        text,
    conversion_type text,
    provider_app_event_id text,
    provider_app_event_name text,
    deep_link_scheme text,
    post_view_attribution_window bigint,
    post_engagement_attribution_window bigint,
    retargeting_enabled boolean,
    status         text,
    last_tracked_at timestamptz,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX app_event_tags_history_closed_id_idx ON app_event_tags_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION app_event_tags_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO app_event_tags_history_closed (account_id, id, app_store_identifier, os_type, conversion_type, provider_app_event_id, provider_app_event_name, deep_link_scheme, post_view_attribution_window, post_engagement_attribution_window, retargeting_enabled, status, last_tracked_at, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.app_store_identifier, OLD.os_type, OLD.conversion_type, OLD.provider_app_event_id, OLD.provider_app_event_name, OLD.deep_link_scheme, OLD.post_view_attribution_window, OLD.post_engagement_attribution_window, OLD.retargeting_enabled, OLD.status, OLD.last_tracked_at, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW app_event_tags_history AS
SELECT t.account_id, t.id, t.app_store_identifier, t.os_type, t.conversion_type, t.provider_app_event_id, t.provider_app_event_name, t.deep_link_scheme, t.post_view_attribution_window, t.post_engagement_attribution_window, t.retargeting_enabled, t.status, t.last_tracked_at, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM app_event_tags t
UNION ALL
SELECT account_id, id, app_store_identifier, os_type, conversion_type, provider_app_event_id, provider_app_event_name, deep_link_scheme, post_view_attribution_window, post_engagement_attribution_window, retargeting_enabled, status, last_tracked_at, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM app_event_tags_history_closed;
CREATE TRIGGER app_event_tags_history BEFORE UPDATE ON app_event_tags FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION app_event_tags_history_close();

ALTER TABLE scheduled_posts ADD COLUMN valid_from timestamptz;
CREATE TABLE scheduled_posts_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    text           text,
    user_id        text,
    scheduled_at   timestamptz,
    scheduled_status text,
    completed_at   timestamptz,
    post_id        text,
    nullcast       boolean,
    card_uri       text,
    media_keys     text[],
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX scheduled_posts_history_closed_id_idx ON scheduled_posts_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION scheduled_posts_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO scheduled_posts_history_closed (account_id, id, name, text, user_id, scheduled_at, scheduled_status, completed_at, post_id, nullcast, card_uri, media_keys, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.text, OLD.user_id, OLD.scheduled_at, OLD.scheduled_status, OLD.completed_at, OLD.post_id, OLD.nullcast, OLD.card_uri, OLD.media_keys, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW scheduled_posts_history AS
SELECT t.account_id, t.id, t.name, t.text, t.user_id, t.scheduled_at, t.scheduled_status, t.completed_at, t.post_id, t.nullcast, t.card_uri, t.media_keys, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM scheduled_posts t
UNION ALL
SELECT account_id, id, name, text, user_id, scheduled_at, scheduled_status, completed_at, post_id, nullcast, card_uri, media_keys, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM scheduled_posts_history_closed;
CREATE TRIGGER scheduled_posts_history BEFORE UPDATE ON scheduled_posts FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION scheduled_posts_history_close();

ALTER TABLE draft_posts ADD COLUMN valid_from timestamptz;
CREATE TABLE draft_posts_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    text           text,
    user_id        text,
    nullcast       boolean,
    card_uri       text,
    media_keys     text[],
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX draft_posts_history_closed_id_idx ON draft_posts_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION draft_posts_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO draft_posts_history_closed (account_id, id, name, text, user_id, nullcast, card_uri, media_keys, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.text, OLD.user_id, OLD.nullcast, OLD.card_uri, OLD.media_keys, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW draft_posts_history AS
SELECT t.account_id, t.id, t.name, t.text, t.user_id, t.nullcast, t.card_uri, t.media_keys, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM draft_posts t
UNION ALL
SELECT account_id, id, name, text, user_id, nullcast, card_uri, media_keys, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM draft_posts_history_closed;
CREATE TRIGGER draft_posts_history BEFORE UPDATE ON draft_posts FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION draft_posts_history_close();

ALTER TABLE media_library ADD COLUMN valid_from timestamptz;
CREATE TABLE media_library_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    file_name      text,
    description    text,
    title          text,
    media_url      text,
    media_type     text,
    media_category text,
    media_status   text,
    aspect_ratio   text,
    duration       bigint,
    poster_media_url text,
    poster_media_key text,
    posted         boolean,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX media_library_history_closed_id_idx ON media_library_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION media_library_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO media_library_history_closed (account_id, id, name, file_name, description, title, media_url, media_type, media_category, media_status, aspect_ratio, duration, poster_media_url, poster_media_key, posted, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.file_name, OLD.description, OLD.title, OLD.media_url, OLD.media_type, OLD.media_category, OLD.media_status, OLD.aspect_ratio, OLD.duration, OLD.poster_media_url, OLD.poster_media_key, OLD.posted, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW media_library_history AS
SELECT t.account_id, t.id, t.name, t.file_name, t.description, t.title, t.media_url, t.media_type, t.media_category, t.media_status, t.aspect_ratio, t.duration, t.poster_media_url, t.poster_media_key, t.posted, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM media_library t
UNION ALL
SELECT account_id, id, name, file_name, description, title, media_url, media_type, media_category, media_status, aspect_ratio, duration, poster_media_url, poster_media_key, posted, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM media_library_history_closed;
CREATE TRIGGER media_library_history BEFORE UPDATE ON media_library FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION media_library_history_close();

ALTER TABLE custom_audiences ADD COLUMN valid_from timestamptz;
CREATE TABLE custom_audiences_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    description    text,
    audience_type  text,
    targetable     boolean,
    targetable_types text[],
    reasons_not_targetable text[],
    permission_level text,
    owner_account_id text,
    is_owner       boolean,
    partner_source text,
    audience_size  bigint,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX custom_audiences_history_closed_id_idx ON custom_audiences_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION custom_audiences_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO custom_audiences_history_closed (account_id, id, name, description, audience_type, targetable, targetable_types, reasons_not_targetable, permission_level, owner_account_id, is_owner, partner_source, audience_size, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.name, OLD.description, OLD.audience_type, OLD.targetable, OLD.targetable_types, OLD.reasons_not_targetable, OLD.permission_level, OLD.owner_account_id, OLD.is_owner, OLD.partner_source, OLD.audience_size, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW custom_audiences_history AS
SELECT t.account_id, t.id, t.name, t.description, t.audience_type, t.targetable, t.targetable_types, t.reasons_not_targetable, t.permission_level, t.owner_account_id, t.is_owner, t.partner_source, t.audience_size, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM custom_audiences t
UNION ALL
SELECT account_id, id, name, description, audience_type, targetable, targetable_types, reasons_not_targetable, permission_level, owner_account_id, is_owner, partner_source, audience_size, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM custom_audiences_history_closed;
CREATE TRIGGER custom_audiences_history BEFORE UPDATE ON custom_audiences FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION custom_audiences_history_close();

ALTER TABLE custom_audience_targeting ADD COLUMN valid_from timestamptz;
CREATE TABLE custom_audience_targeting_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    custom_audience_id text,
    campaign_id    text,
    campaign_name  text,
    line_items     jsonb,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX custom_audience_targeting_history_closed_id_idx ON custom_audience_targeting_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION custom_audience_targeting_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO custom_audience_targeting_history_closed (account_id, id, custom_audience_id, campaign_id, campaign_name, line_items, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.custom_audience_id, OLD.campaign_id, OLD.campaign_name, OLD.line_items, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW custom_audience_targeting_history AS
SELECT t.account_id, t.id, t.custom_audience_id, t.campaign_id, t.campaign_name, t.line_items, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM custom_audience_targeting t
UNION ALL
SELECT account_id, id, custom_audience_id, campaign_id, campaign_name, line_items, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM custom_audience_targeting_history_closed;
CREATE TRIGGER custom_audience_targeting_history BEFORE UPDATE ON custom_audience_targeting FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION custom_audience_targeting_history_close();

ALTER TABLE tailored_audience_permissions ADD COLUMN valid_from timestamptz;
CREATE TABLE tailored_audience_permissions_history_closed (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    tailored_audience_id text,
    granted_account_id text,
    permission_level text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tailored_audience_permissions_history_closed_id_idx ON tailored_audience_permissions_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION tailored_audience_permissions_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO tailored_audience_permissions_history_closed (account_id, id, tailored_audience_id, granted_account_id, permission_level, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.account_id, OLD.id, OLD.tailored_audience_id, OLD.granted_account_id, OLD.permission_level, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW tailored_audience_permissions_history AS
SELECT t.account_id, t.id, t.tailored_audience_id, t.granted_account_id, t.permission_level, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM tailored_audience_permissions t
UNION ALL
SELECT account_id, id, tailored_audience_id, granted_account_id, permission_level, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM tailored_audience_permissions_history_closed;
CREATE TRIGGER tailored_audience_permissions_history BEFORE UPDATE ON tailored_audience_permissions FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION tailored_audience_permissions_history_close();

ALTER TABLE iab_categories ADD COLUMN valid_from timestamptz;
CREATE TABLE iab_categories_history_closed (
    id             text        NOT NULL,
    name           text,
    parent_id      text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX iab_categories_history_closed_id_idx ON iab_categories_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION iab_categories_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO iab_categories_history_closed (id, name, parent_id, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.parent_id, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW iab_categories_history AS
SELECT t.id, t.name, t.parent_id, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM iab_categories t
UNION ALL
SELECT id, name, parent_id, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM iab_categories_history_closed;
CREATE TRIGGER iab_categories_history BEFORE UPDATE ON iab_categories FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION iab_categories_history_close();

ALTER TABLE content_categories ADD COLUMN valid_from timestamptz;
CREATE TABLE content_categories_history_closed (
    id             text        NOT NULL,
    name           text,
    iab_categories text[],
    publishers_in_last_thirty_days bigint,
    videos_monetized_in_last_thirty_days bigint,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX content_categories_history_closed_id_idx ON content_categories_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION content_categories_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO content_categories_history_closed (id, name, iab_categories, publishers_in_last_thirty_days, videos_monetized_in_last_thirty_days, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.iab_categories, OLD.publishers_in_last_thirty_days, OLD.videos_monetized_in_last_thirty_days, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW content_categories_history AS
SELECT t.id, t.name, t.iab_categories, t.publishers_in_last_thirty_days, t.videos_monetized_in_last_thirty_days, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM content_categories t
UNION ALL
SELECT id, name, iab_categories, publishers_in_last_thirty_days, videos_monetized_in_last_thirty_days, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM content_categories_history_closed;
CREATE TRIGGER content_categories_history BEFORE UPDATE ON content_categories FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION content_categories_history_close();

ALTER TABLE bidding_rules ADD COLUMN valid_from timestamptz;
CREATE TABLE bidding_rules_history_closed (
    id             text        NOT NULL,
    currency       text,
    minimum_cpe_bid_local_micro bigint,
    maximum_cpe_bid_local_micro bigint,
    minimum_denomination bigint,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bidding_rules_history_closed_id_idx ON bidding_rules_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION bidding_rules_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO bidding_rules_history_closed (id, currency, minimum_cpe_bid_local_micro, maximum_cpe_bid_local_micro, minimum_denomination, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.currency, OLD.minimum_cpe_bid_local_micro, OLD.maximum_cpe_bid_local_micro, OLD.minimum_denomination, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW bidding_rules_history AS
SELECT t.id, t.currency, t.minimum_cpe_bid_local_micro, t.maximum_cpe_bid_local_micro, t.minimum_denomination, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM bidding_rules t
UNION ALL
SELECT id, currency, minimum_cpe_bid_local_micro, maximum_cpe_bid_local_micro, minimum_denomination, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM bidding_rules_history_closed;
CREATE TRIGGER bidding_rules_history BEFORE UPDATE ON bidding_rules FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION bidding_rules_history_close();

ALTER TABLE line_item_placements ADD COLUMN valid_from timestamptz;
CREATE TABLE line_item_placements_history_closed (
    id             text        NOT NULL,
    product_type   text,
    placements     jsonb,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX line_item_placements_history_closed_id_idx ON line_item_placements_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION line_item_placements_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO line_item_placements_history_closed (id, product_type, placements, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.product_type, OLD.placements, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW line_item_placements_history AS
SELECT t.id, t.product_type, t.placements, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM line_item_placements t
UNION ALL
SELECT id, product_type, placements, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM line_item_placements_history_closed;
CREATE TRIGGER line_item_placements_history BEFORE UPDATE ON line_item_placements FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION line_item_placements_history_close();

ALTER TABLE advertiser_business_categories ADD COLUMN valid_from timestamptz;
CREATE TABLE advertiser_business_categories_history_closed (
    id             text        NOT NULL,
    name           text,
    iab_categories text[],
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX advertiser_business_categories_history_closed_id_idx ON advertiser_business_categories_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION advertiser_business_categories_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO advertiser_business_categories_history_closed (id, name, iab_categories, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.iab_categories, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW advertiser_business_categories_history AS
SELECT t.id, t.name, t.iab_categories, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM advertiser_business_categories t
UNION ALL
SELECT id, name, iab_categories, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM advertiser_business_categories_history_closed;
CREATE TRIGGER advertiser_business_categories_history BEFORE UPDATE ON advertiser_business_categories FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION advertiser_business_categories_history_close();

ALTER TABLE targeting_criteria_app_store_categories ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_app_store_categories_history_closed (
    id             text        NOT NULL,
    name           text,
    targeting_type text,
    targeting_value text,
    os_type        text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_app_store_categories_history_closed_id_idx ON targeting_criteria_app_store_categories_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_app_store_categories_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_app_store_categories_history_closed (id, name, targeting_type, targeting_value, os_type, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.targeting_type, OLD.targeting_value, OLD.os_type, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_app_store_categories_history AS
SELECT t.id, t.name, t.targeting_type, t.targeting_value, t.os_type, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_app_store_categories t
UNION ALL
SELECT id, name, targeting_type, targeting_value, os_type, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_app_store_categories_history_closed;
CREATE TRIGGER targeting_criteria_app_store_categories_history BEFORE UPDATE ON targeting_criteria_app_store_categories FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_app_store_categories_history_close();

ALTER TABLE targeting_criteria_conversations ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_conversations_history_closed (
    id             text        NOT NULL,
    name           text,
    targeting_type text,
    targeting_value text,
    conversation_type text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_conversations_history_closed_id_idx ON targeting_criteria_conversations_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_conversations_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_conversations_history_closed (id, name, targeting_type, targeting_value, conversation_type, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.targeting_type, OLD.targeting_value, OLD.conversation_type, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_conversations_history AS
SELECT t.id, t.name, t.targeting_type, t.targeting_value, t.conversation_type, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_conversations t
UNION ALL
SELECT id, name, targeting_type, targeting_value, conversation_type, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_conversations_history_closed;
CREATE TRIGGER targeting_criteria_conversations_history BEFORE UPDATE ON targeting_criteria_conversations FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_conversations_history_close();

ALTER TABLE targeting_criteria_devices ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_devices_history_closed (
    id             text        NOT NULL,
    name           text,
    manufacturer   text,
    os_type        text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_devices_history_closed_id_idx ON targeting_criteria_devices_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_devices_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_devices_history_closed (id, name, manufacturer, os_type, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.manufacturer, OLD.os_type, OLD.targeting_type, OLD.targeting_value, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_devices_history AS
SELECT t.id, t.name, t.manufacturer, t.os_type, t.targeting_type, t.targeting_value, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_devices t
UNION ALL
SELECT id, name, manufacturer, os_type, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_devices_history_closed;
CREATE TRIGGER targeting_criteria_devices_history BEFORE UPDATE ON targeting_criteria_devices FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_devices_history_close();

ALTER TABLE targeting_criteria_events ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_events_history_closed (
    id             text        NOT NULL,
    name           text,
    event_type     text,
    start_time     timestamptz,
    end_time       timestamptz,
    country_code   text,
    is_global      boolean,
    reach          jsonb,
    top_users      text[],
    top_hashtags   text[],
    top_posts      text[],
    gender_breakdown_percentage jsonb,
    device_breakdown_percentage jsonb,
    country_breakdown_percentage jsonb,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_events_history_closed_id_idx ON targeting_criteria_events_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_events_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_events_history_closed (id, name, event_type, start_time, end_time, country_code, is_global, reach, top_users, top_hashtags, top_posts, gender_breakdown_percentage, device_breakdown_percentage, country_breakdown_percentage, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.event_type, OLD.start_time, OLD.end_time, OLD.country_code, OLD.is_global, OLD.reach, OLD.top_users, OLD.top_hashtags, OLD.top_posts, OLD.gender_breakdown_percentage, OLD.device_breakdown_percentage, OLD.country_breakdown_percentage, OLD.targeting_value, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_events_history AS
SELECT t.id, t.name, t.event_type, t.start_time, t.end_time, t.country_code, t.is_global, t.reach, t.top_users, t.top_hashtags, t.top_posts, t.gender_breakdown_percentage, t.device_breakdown_percentage, t.country_breakdown_percentage, t.targeting_value, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_events t
UNION ALL
SELECT id, name, event_type, start_time, end_time, country_code, is_global, reach, top_users, top_hashtags, top_posts, gender_breakdown_percentage, device_breakdown_percentage, country_breakdown_percentage, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_events_history_closed;
CREATE TRIGGER targeting_criteria_events_history BEFORE UPDATE ON targeting_criteria_events FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_events_history_close();

ALTER TABLE targeting_criteria_interests ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_interests_history_closed (
    id             text        NOT NULL,
    name           text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_interests_history_closed_id_idx ON targeting_criteria_interests_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_interests_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_interests_history_closed (id, name, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.targeting_type, OLD.targeting_value, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_interests_history AS
SELECT t.id, t.name, t.targeting_type, t.targeting_value, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_interests t
UNION ALL
SELECT id, name, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_interests_history_closed;
CREATE TRIGGER targeting_criteria_interests_history BEFORE UPDATE ON targeting_criteria_interests FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_interests_history_close();

ALTER TABLE targeting_criteria_languages ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_languages_history_closed (
    id             text        NOT NULL,
    name           text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_languages_history_closed_id_idx ON targeting_criteria_languages_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_languages_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_languages_history_closed (id, name, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.targeting_type, OLD.targeting_value, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_languages_history AS
SELECT t.id, t.name, t.targeting_type, t.targeting_value, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_languages t
UNION ALL
SELECT id, name, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_languages_history_closed;
CREATE TRIGGER targeting_criteria_languages_history BEFORE UPDATE ON targeting_criteria_languages FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_languages_history_close();

ALTER TABLE targeting_criteria_locations ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_locations_history_closed (
    id             text        NOT NULL,
    name           text,
    country_code   text,
    location_type  text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_locations_history_closed_id_idx ON targeting_criteria_locations_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_locations_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_locations_history_closed (id, name, country_code, location_type, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.country_code, OLD.location_type, OLD.targeting_type, OLD.targeting_value, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_locations_history AS
SELECT t.id, t.name, t.country_code, t.location_type, t.targeting_type, t.targeting_value, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_locations t
UNION ALL
SELECT id, name, country_code, location_type, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_locations_history_closed;
CREATE TRIGGER targeting_criteria_locations_history BEFORE UPDATE ON targeting_criteria_locations FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_locations_history_close();

ALTER TABLE targeting_criteria_network_operators ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_network_operators_history_closed (
    id             text        NOT NULL,
    name           text,
    country_code   text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_network_operators_history_closed_id_idx ON targeting_criteria_network_operators_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_network_operators_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_network_operators_history_closed (id, name, country_code, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.country_code, OLD.targeting_type, OLD.targeting_value, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_network_operators_history AS
SELECT t.id, t.name, t.country_code, t.targeting_type, t.targeting_value, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_network_operators t
UNION ALL
SELECT id, name, country_code, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_network_operators_history_closed;
CREATE TRIGGER targeting_criteria_network_operators_history BEFORE UPDATE ON targeting_criteria_network_operators FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_network_operators_history_close();

ALTER TABLE targeting_criteria_platform_versions ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_platform_versions_history_closed (
    id             text        NOT NULL,
    name           text,
    number         text,
    os_type        text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_platform_versions_history_closed_id_idx ON targeting_criteria_platform_versions_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_platform_versions_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_platform_versions_history_closed (id, name, number, os_type, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.number, OLD.os_type, OLD.targeting_type, OLD.targeting_value, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_platform_versions_history AS
SELECT t.id, t.name, t.number, t.os_type, t.targeting_type, t.targeting_value, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_platform_versions t
UNION ALL
SELECT id, name, number, os_type, targeting_type, targeting_value, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_platform_versions_history_closed;
CREATE TRIGGER targeting_criteria_platform_versions_history BEFORE UPDATE ON targeting_criteria_platform_versions FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_platform_versions_history_close();

ALTER TABLE targeting_criteria_platforms ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_platforms_history_closed (
    id             text        NOT NULL,
    name           text,
    targeting_type text,
    targeting_value text,
    localized_name text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_platforms_history_closed_id_idx ON targeting_criteria_platforms_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_platforms_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_platforms_history_closed (id, name, targeting_type, targeting_value, localized_name, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.targeting_type, OLD.targeting_value, OLD.localized_name, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_platforms_history AS
SELECT t.id, t.name, t.targeting_type, t.targeting_value, t.localized_name, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_platforms t
UNION ALL
SELECT id, name, targeting_type, targeting_value, localized_name, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_platforms_history_closed;
CREATE TRIGGER targeting_criteria_platforms_history BEFORE UPDATE ON targeting_criteria_platforms FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_platforms_history_close();

ALTER TABLE targeting_criteria_tv_markets ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_tv_markets_history_closed (
    id             text        NOT NULL,
    name           text,
    country_code   text,
    locale         text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_tv_markets_history_closed_id_idx ON targeting_criteria_tv_markets_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_tv_markets_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_tv_markets_history_closed (id, name, country_code, locale, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.country_code, OLD.locale, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_tv_markets_history AS
SELECT t.id, t.name, t.country_code, t.locale, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_tv_markets t
UNION ALL
SELECT id, name, country_code, locale, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_tv_markets_history_closed;
CREATE TRIGGER targeting_criteria_tv_markets_history BEFORE UPDATE ON targeting_criteria_tv_markets FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_tv_markets_history_close();

ALTER TABLE targeting_criteria_tv_shows ADD COLUMN valid_from timestamptz;
CREATE TABLE targeting_criteria_tv_shows_history_closed (
    id             text        NOT NULL,
    name           text,
    targeting_value bigint,
    genre          text,
    locales        jsonb,
    estimated_users bigint,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    last_synced_at timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX targeting_criteria_tv_shows_history_closed_id_idx ON targeting_criteria_tv_shows_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION targeting_criteria_tv_shows_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', COALESCE(OLD.api_updated_at, OLD.first_seen_at)));
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('millisecond', NEW.api_updated_at) > prev THEN date_trunc('millisecond', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('millisecond', NEW.last_synced_at), prev + interval '1 millisecond') END;
    INSERT INTO targeting_criteria_tv_shows_history_closed (id, name, targeting_value, genre, locales, estimated_users, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.targeting_value, OLD.genre, OLD.locales, OLD.estimated_users, OLD.raw, OLD.api_created_at, OLD.api_updated_at, OLD.deleted, OLD.doc_hash, OLD.first_seen_at, OLD.last_synced_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW targeting_criteria_tv_shows_history AS
SELECT t.id, t.name, t.targeting_value, t.genre, t.locales, t.estimated_users, t.raw, t.api_created_at, t.api_updated_at, t.deleted, t.doc_hash, t.first_seen_at, t.last_synced_at,
    COALESCE(t.valid_from, date_trunc('millisecond', COALESCE(t.api_updated_at, t.first_seen_at))) AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM targeting_criteria_tv_shows t
UNION ALL
SELECT id, name, targeting_value, genre, locales, estimated_users, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at, valid_from, valid_to, written_at
FROM targeting_criteria_tv_shows_history_closed;
CREATE TRIGGER targeting_criteria_tv_shows_history BEFORE UPDATE ON targeting_criteria_tv_shows FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION targeting_criteria_tv_shows_history_close();
