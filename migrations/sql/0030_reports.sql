-- Daily reports (generated from sync/report's levels and segments by
-- go test ./sync/report -run TestMigration -update; edit those, not this).
--
-- One view per level, from the unsegmented DAY rows of ad_stats, and one per
-- level and segmentation type, from the rows of that segmentation: date is
-- the account's local day, spend is billed_charge_local_micro / 1e6 (exact),
-- ctr, cpc and cpm are NULL where their denominator is zero. The account and
-- funding instrument levels sum their campaigns' rows.

CREATE INDEX ad_stats_report_idx ON ad_stats (entity_type, (split_part(segment_type, ':', 1)), granularity, fetched_at);

CREATE TYPE report_metrics AS (
    impressions bigint, engagements bigint, clicks bigint, url_clicks bigint, spend numeric, ctr numeric,
    cpc numeric, cpm numeric, spend_micro bigint, reposts bigint, replies bigint, likes bigint, follows bigint,
    card_engagements bigint, app_clicks bigint, qualified_impressions bigint, billed_engagements bigint,
    video_total_views bigint, video_views_25 bigint, video_views_50 bigint, video_views_75 bigint,
    video_views_100 bigint, video_cta_clicks bigint, video_content_starts bigint, video_3s100pct_views bigint,
    video_6s_views bigint, video_15s_views bigint, media_views bigint, media_engagements bigint,
    conversion_purchases_metric bigint, conversion_purchases_order_quantity bigint,
    conversion_purchases_sale_amount bigint, conversion_purchases_post_engagement bigint,
    conversion_purchases_post_view bigint, conversion_purchases_assisted bigint,
    conversion_sign_ups_metric bigint, conversion_sign_ups_order_quantity bigint,
    conversion_sign_ups_sale_amount bigint, conversion_sign_ups_post_engagement bigint,
    conversion_sign_ups_post_view bigint, conversion_sign_ups_assisted bigint,
    conversion_site_visits_metric bigint, conversion_site_visits_order_quantity bigint,
    conversion_site_visits_sale_amount bigint, conversion_site_visits_post_engagement bigint,
    conversion_site_visits_post_view bigint, conversion_site_visits_assisted bigint,
    conversion_downloads_metric bigint, conversion_downloads_order_quantity bigint,
    conversion_downloads_sale_amount bigint, conversion_downloads_post_engagement bigint,
    conversion_downloads_post_view bigint, conversion_downloads_assisted bigint,
    conversion_custom_metric bigint, conversion_custom_order_quantity bigint,
    conversion_custom_sale_amount bigint, conversion_custom_post_engagement bigint,
    conversion_custom_post_view bigint, conversion_custom_assisted bigint,
    mobile_conversion_installs_post_view bigint, mobile_conversion_installs_post_engagement bigint,
    mobile_conversion_installs_assisted bigint, mobile_conversion_installs_order_quantity bigint,
    mobile_conversion_installs_sale_amount bigint, mobile_conversion_purchases_post_view bigint,
    mobile_conversion_purchases_post_engagement bigint, mobile_conversion_purchases_assisted bigint,
    mobile_conversion_purchases_order_quantity bigint, mobile_conversion_purchases_sale_amount bigint,
    mobile_conversion_sign_ups_post_view bigint, mobile_conversion_sign_ups_post_engagement bigint,
    mobile_conversion_sign_ups_assisted bigint, mobile_conversion_sign_ups_order_quantity bigint,
    mobile_conversion_sign_ups_sale_amount bigint, mobile_conversion_re_engages_post_view bigint,
    mobile_conversion_re_engages_post_engagement bigint, mobile_conversion_re_engages_assisted bigint,
    mobile_conversion_re_engages_order_quantity bigint, mobile_conversion_re_engages_sale_amount bigint,
    mobile_conversion_add_to_carts_post_view bigint, mobile_conversion_add_to_carts_post_engagement bigint,
    mobile_conversion_add_to_carts_assisted bigint, mobile_conversion_add_to_carts_order_quantity bigint,
    mobile_conversion_add_to_carts_sale_amount bigint, mobile_conversion_checkouts_initiated_post_view bigint,
    mobile_conversion_checkouts_initiated_post_engagement bigint,
    mobile_conversion_checkouts_initiated_assisted bigint,
    mobile_conversion_checkouts_initiated_order_quantity bigint,
    mobile_conversion_checkouts_initiated_sale_amount bigint, mobile_conversion_content_views_post_view bigint,
    mobile_conversion_content_views_post_engagement bigint, mobile_conversion_content_views_assisted bigint,
    mobile_conversion_content_views_order_quantity bigint, mobile_conversion_content_views_sale_amount bigint,
    mobile_conversion_spent_credits_post_view bigint, mobile_conversion_spent_credits_post_engagement bigint,
    mobile_conversion_spent_credits_assisted bigint, mobile_conversion_spent_credits_order_quantity bigint,
    mobile_conversion_spent_credits_sale_amount bigint,
    mobile_conversion_lifetime_value_purchases_post_view bigint,
    mobile_conversion_lifetime_value_purchases_post_engagement bigint,
    mobile_conversion_lifetime_value_purchases_assisted bigint,
    mobile_conversion_lifetime_value_purchases_order_quantity bigint,
    mobile_conversion_lifetime_value_purchases_sale_amount bigint,
    mobile_conversion_lifetime_value_sign_ups_post_view bigint,
    mobile_conversion_lifetime_value_sign_ups_post_engagement bigint,
    mobile_conversion_lifetime_value_sign_ups_assisted bigint,
    mobile_conversion_lifetime_value_sign_ups_order_quantity bigint,
    mobile_conversion_lifetime_value_sign_ups_sale_amount bigint,
    mobile_conversion_lifetime_value_spent_credits_post_view bigint,
    mobile_conversion_lifetime_value_spent_credits_post_engagement bigint,
    mobile_conversion_lifetime_value_spent_credits_assisted bigint,
    mobile_conversion_lifetime_value_spent_credits_order_quantity bigint,
    mobile_conversion_lifetime_value_spent_credits_sale_amount bigint
);

CREATE VIEW report_base_day AS
SELECT s.bucket_date, s.account_id, s.entity_type, s.entity_id, s.placement, s.segment_type, s.segment_value,
    s.segment_name,
    ROW(s.impressions, s.engagements, s.clicks, s.url_clicks, round(s.billed_charge_local_micro::numeric / 1000000, 6),
        round(coalesce(s.clicks, 0)::numeric / NULLIF(s.impressions, 0), 6),
        round(coalesce(s.billed_charge_local_micro, 0)::numeric / 1000000 / NULLIF(s.clicks, 0), 6),
        round(coalesce(s.billed_charge_local_micro, 0)::numeric / 1000 / NULLIF(s.impressions, 0), 6),
        s.billed_charge_local_micro, s.reposts, s.replies, s.likes, s.follows, s.card_engagements,
        s.app_clicks, s.qualified_impressions, s.billed_engagements, s.video_total_views, s.video_views_25,
        s.video_views_50, s.video_views_75, s.video_views_100, s.video_cta_clicks, s.video_content_starts,
        s.video_3s100pct_views, s.video_6s_views, s.video_15s_views, s.media_views, s.media_engagements,
        s.conversion_purchases_metric, s.conversion_purchases_order_quantity,
        s.conversion_purchases_sale_amount, s.conversion_purchases_post_engagement,
        s.conversion_purchases_post_view, s.conversion_purchases_assisted, s.conversion_sign_ups_metric,
        s.conversion_sign_ups_order_quantity, s.conversion_sign_ups_sale_amount,
        s.conversion_sign_ups_post_engagement, s.conversion_sign_ups_post_view, s.conversion_sign_ups_assisted,
        s.conversion_site_visits_metric, s.conversion_site_visits_order_quantity,
        s.conversion_site_visits_sale_amount, s.conversion_site_visits_post_engagement,
        s.conversion_site_visits_post_view, s.conversion_site_visits_assisted, s.conversion_downloads_metric,
        s.conversion_downloads_order_quantity, s.conversion_downloads_sale_amount,
        s.conversion_downloads_post_engagement, s.conversion_downloads_post_view,
        s.conversion_downloads_assisted, s.conversion_custom_metric, s.conversion_custom_order_quantity,
        s.conversion_custom_sale_amount, s.conversion_custom_post_engagement, s.conversion_custom_post_view,
        s.conversion_custom_assisted, s.mobile_conversion_installs_post_view,
        s.mobile_conversion_installs_post_engagement, s.mobile_conversion_installs_assisted,
        s.mobile_conversion_installs_order_quantity, s.mobile_conversion_installs_sale_amount,
        s.mobile_conversion_purchases_post_view, s.mobile_conversion_purchases_post_engagement,
        s.mobile_conversion_purchases_assisted, s.mobile_conversion_purchases_order_quantity,
        s.mobile_conversion_purchases_sale_amount, s.mobile_conversion_sign_ups_post_view,
        s.mobile_conversion_sign_ups_post_engagement, s.mobile_conversion_sign_ups_assisted,
        s.mobile_conversion_sign_ups_order_quantity, s.mobile_conversion_sign_ups_sale_amount,
        s.mobile_conversion_re_engages_post_view, s.mobile_conversion_re_engages_post_engagement,
        s.mobile_conversion_re_engages_assisted, s.mobile_conversion_re_engages_order_quantity,
        s.mobile_conversion_re_engages_sale_amount, s.mobile_conversion_add_to_carts_post_view,
        s.mobile_conversion_add_to_carts_post_engagement, s.mobile_conversion_add_to_carts_assisted,
        s.mobile_conversion_add_to_carts_order_quantity, s.mobile_conversion_add_to_carts_sale_amount,
        s.mobile_conversion_checkouts_initiated_post_view,
        s.mobile_conversion_checkouts_initiated_post_engagement,
        s.mobile_conversion_checkouts_initiated_assisted,
        s.mobile_conversion_checkouts_initiated_order_quantity,
        s.mobile_conversion_checkouts_initiated_sale_amount, s.mobile_conversion_content_views_post_view,
        s.mobile_conversion_content_views_post_engagement, s.mobile_conversion_content_views_assisted,
        s.mobile_conversion_content_views_order_quantity, s.mobile_conversion_content_views_sale_amount,
        s.mobile_conversion_spent_credits_post_view, s.mobile_conversion_spent_credits_post_engagement,
        s.mobile_conversion_spent_credits_assisted, s.mobile_conversion_spent_credits_order_quantity,
        s.mobile_conversion_spent_credits_sale_amount, s.mobile_conversion_lifetime_value_purchases_post_view,
        s.mobile_conversion_lifetime_value_purchases_post_engagement,
        s.mobile_conversion_lifetime_value_purchases_assisted,
        s.mobile_conversion_lifetime_value_purchases_order_quantity,
        s.mobile_conversion_lifetime_value_purchases_sale_amount,
        s.mobile_conversion_lifetime_value_sign_ups_post_view,
        s.mobile_conversion_lifetime_value_sign_ups_post_engagement,
        s.mobile_conversion_lifetime_value_sign_ups_assisted,
        s.mobile_conversion_lifetime_value_sign_ups_order_quantity,
        s.mobile_conversion_lifetime_value_sign_ups_sale_amount,
        s.mobile_conversion_lifetime_value_spent_credits_post_view,
        s.mobile_conversion_lifetime_value_spent_credits_post_engagement,
        s.mobile_conversion_lifetime_value_spent_credits_assisted,
        s.mobile_conversion_lifetime_value_spent_credits_order_quantity,
        s.mobile_conversion_lifetime_value_spent_credits_sale_amount)::report_metrics AS m,
    s.fetched_at
FROM ad_stats s
WHERE s.granularity = 'DAY';

CREATE VIEW report_base_account_day AS
SELECT g.bucket_date, g.account_id, g.placement, g.segment_type, g.segment_value, g.segment_name,
    ROW(g.impressions, g.engagements, g.clicks, g.url_clicks, round(g.billed_charge_local_micro::numeric / 1000000, 6),
        round(coalesce(g.clicks, 0)::numeric / NULLIF(g.impressions, 0), 6),
        round(coalesce(g.billed_charge_local_micro, 0)::numeric / 1000000 / NULLIF(g.clicks, 0), 6),
        round(coalesce(g.billed_charge_local_micro, 0)::numeric / 1000 / NULLIF(g.impressions, 0), 6),
        g.billed_charge_local_micro, g.reposts, g.replies, g.likes, g.follows, g.card_engagements,
        g.app_clicks, g.qualified_impressions, g.billed_engagements, g.video_total_views, g.video_views_25,
        g.video_views_50, g.video_views_75, g.video_views_100, g.video_cta_clicks, g.video_content_starts,
        g.video_3s100pct_views, g.video_6s_views, g.video_15s_views, g.media_views, g.media_engagements,
        g.conversion_purchases_metric, g.conversion_purchases_order_quantity,
        g.conversion_purchases_sale_amount, g.conversion_purchases_post_engagement,
        g.conversion_purchases_post_view, g.conversion_purchases_assisted, g.conversion_sign_ups_metric,
        g.conversion_sign_ups_order_quantity, g.conversion_sign_ups_sale_amount,
        g.conversion_sign_ups_post_engagement, g.conversion_sign_ups_post_view, g.conversion_sign_ups_assisted,
        g.conversion_site_visits_metric, g.conversion_site_visits_order_quantity,
        g.conversion_site_visits_sale_amount, g.conversion_site_visits_post_engagement,
        g.conversion_site_visits_post_view, g.conversion_site_visits_assisted, g.conversion_downloads_metric,
        g.conversion_downloads_order_quantity, g.conversion_downloads_sale_amount,
        g.conversion_downloads_post_engagement, g.conversion_downloads_post_view,
        g.conversion_downloads_assisted, g.conversion_custom_metric, g.conversion_custom_order_quantity,
        g.conversion_custom_sale_amount, g.conversion_custom_post_engagement, g.conversion_custom_post_view,
        g.conversion_custom_assisted, g.mobile_conversion_installs_post_view,
        g.mobile_conversion_installs_post_engagement, g.mobile_conversion_installs_assisted,
        g.mobile_conversion_installs_order_quantity, g.mobile_conversion_installs_sale_amount,
        g.mobile_conversion_purchases_post_view, g.mobile_conversion_purchases_post_engagement,
        g.mobile_conversion_purchases_assisted, g.mobile_conversion_purchases_order_quantity,
        g.mobile_conversion_purchases_sale_amount, g.mobile_conversion_sign_ups_post_view,
        g.mobile_conversion_sign_ups_post_engagement, g.mobile_conversion_sign_ups_assisted,
        g.mobile_conversion_sign_ups_order_quantity, g.mobile_conversion_sign_ups_sale_amount,
        g.mobile_conversion_re_engages_post_view, g.mobile_conversion_re_engages_post_engagement,
        g.mobile_conversion_re_engages_assisted, g.mobile_conversion_re_engages_order_quantity,
        g.mobile_conversion_re_engages_sale_amount, g.mobile_conversion_add_to_carts_post_view,
        g.mobile_conversion_add_to_carts_post_engagement, g.mobile_conversion_add_to_carts_assisted,
        g.mobile_conversion_add_to_carts_order_quantity, g.mobile_conversion_add_to_carts_sale_amount,
        g.mobile_conversion_checkouts_initiated_post_view,
        g.mobile_conversion_checkouts_initiated_post_engagement,
        g.mobile_conversion_checkouts_initiated_assisted,
        g.mobile_conversion_checkouts_initiated_order_quantity,
        g.mobile_conversion_checkouts_initiated_sale_amount, g.mobile_conversion_content_views_post_view,
        g.mobile_conversion_content_views_post_engagement, g.mobile_conversion_content_views_assisted,
        g.mobile_conversion_content_views_order_quantity, g.mobile_conversion_content_views_sale_amount,
        g.mobile_conversion_spent_credits_post_view, g.mobile_conversion_spent_credits_post_engagement,
        g.mobile_conversion_spent_credits_assisted, g.mobile_conversion_spent_credits_order_quantity,
        g.mobile_conversion_spent_credits_sale_amount, g.mobile_conversion_lifetime_value_purchases_post_view,
        g.mobile_conversion_lifetime_value_purchases_post_engagement,
        g.mobile_conversion_lifetime_value_purchases_assisted,
        g.mobile_conversion_lifetime_value_purchases_order_quantity,
        g.mobile_conversion_lifetime_value_purchases_sale_amount,
        g.mobile_conversion_lifetime_value_sign_ups_post_view,
        g.mobile_conversion_lifetime_value_sign_ups_post_engagement,
        g.mobile_conversion_lifetime_value_sign_ups_assisted,
        g.mobile_conversion_lifetime_value_sign_ups_order_quantity,
        g.mobile_conversion_lifetime_value_sign_ups_sale_amount,
        g.mobile_conversion_lifetime_value_spent_credits_post_view,
        g.mobile_conversion_lifetime_value_spent_credits_post_engagement,
        g.mobile_conversion_lifetime_value_spent_credits_assisted,
        g.mobile_conversion_lifetime_value_spent_credits_order_quantity,
        g.mobile_conversion_lifetime_value_spent_credits_sale_amount)::report_metrics AS m,
    g.fetched_at
FROM (
    SELECT s.bucket_date, s.account_id, s.placement, s.segment_type, s.segment_value, max(s.segment_name) AS segment_name,
        sum(s.impressions)::bigint AS impressions, sum(s.engagements)::bigint AS engagements,
        sum(s.clicks)::bigint AS clicks, sum(s.url_clicks)::bigint AS url_clicks,
        sum(s.billed_charge_local_micro)::bigint AS billed_charge_local_micro,
        sum(s.reposts)::bigint AS reposts, sum(s.replies)::bigint AS replies, sum(s.likes)::bigint AS likes,
        sum(s.follows)::bigint AS follows, sum(s.card_engagements)::bigint AS card_engagements,
        sum(s.app_clicks)::bigint AS app_clicks, sum(s.qualified_impressions)::bigint AS qualified_impressions,
        sum(s.billed_engagements)::bigint AS billed_engagements,
        sum(s.video_total_views)::bigint AS video_total_views, sum(s.video_views_25)::bigint AS video_views_25,
        sum(s.video_views_50)::bigint AS video_views_50, sum(s.video_views_75)::bigint AS video_views_75,
        sum(s.video_views_100)::bigint AS video_views_100, sum(s.video_cta_clicks)::bigint AS video_cta_clicks,
        sum(s.video_content_starts)::bigint AS video_content_starts,
        sum(s.video_3s100pct_views)::bigint AS video_3s100pct_views,
        sum(s.video_6s_views)::bigint AS video_6s_views, sum(s.video_15s_views)::bigint AS video_15s_views,
        sum(s.media_views)::bigint AS media_views, sum(s.media_engagements)::bigint AS media_engagements,
        sum(s.conversion_purchases_metric)::bigint AS conversion_purchases_metric,
        sum(s.conversion_purchases_order_quantity)::bigint AS conversion_purchases_order_quantity,
        sum(s.conversion_purchases_sale_amount)::bigint AS conversion_purchases_sale_amount,
        sum(s.conversion_purchases_post_engagement)::bigint AS conversion_purchases_post_engagement,
        sum(s.conversion_purchases_post_view)::bigint AS conversion_purchases_post_view,
        sum(s.conversion_purchases_assisted)::bigint AS conversion_purchases_assisted,
        sum(s.conversion_sign_ups_metric)::bigint AS conversion_sign_ups_metric,
        sum(s.conversion_sign_ups_order_quantity)::bigint AS conversion_sign_ups_order_quantity,
        sum(s.conversion_sign_ups_sale_amount)::bigint AS conversion_sign_ups_sale_amount,
        sum(s.conversion_sign_ups_post_engagement)::bigint AS conversion_sign_ups_post_engagement,
        sum(s.conversion_sign_ups_post_view)::bigint AS conversion_sign_ups_post_view,
        sum(s.conversion_sign_ups_assisted)::bigint AS conversion_sign_ups_assisted,
        sum(s.conversion_site_visits_metric)::bigint AS conversion_site_visits_metric,
        sum(s.conversion_site_visits_order_quantity)::bigint AS conversion_site_visits_order_quantity,
        sum(s.conversion_site_visits_sale_amount)::bigint AS conversion_site_visits_sale_amount,
        sum(s.conversion_site_visits_post_engagement)::bigint AS conversion_site_visits_post_engagement,
        sum(s.conversion_site_visits_post_view)::bigint AS conversion_site_visits_post_view,
        sum(s.conversion_site_visits_assisted)::bigint AS conversion_site_visits_assisted,
        sum(s.conversion_downloads_metric)::bigint AS conversion_downloads_metric,
        sum(s.conversion_downloads_order_quantity)::bigint AS conversion_downloads_order_quantity,
        sum(s.conversion_downloads_sale_amount)::bigint AS conversion_downloads_sale_amount,
        sum(s.conversion_downloads_post_engagement)::bigint AS conversion_downloads_post_engagement,
        sum(s.conversion_downloads_post_view)::bigint AS conversion_downloads_post_view,
        sum(s.conversion_downloads_assisted)::bigint AS conversion_downloads_assisted,
        sum(s.conversion_custom_metric)::bigint AS conversion_custom_metric,
        sum(s.conversion_custom_order_quantity)::bigint AS conversion_custom_order_quantity,
        sum(s.conversion_custom_sale_amount)::bigint AS conversion_custom_sale_amount,
        sum(s.conversion_custom_post_engagement)::bigint AS conversion_custom_post_engagement,
        sum(s.conversion_custom_post_view)::bigint AS conversion_custom_post_view,
        sum(s.conversion_custom_assisted)::bigint AS conversion_custom_assisted,
        sum(s.mobile_conversion_installs_post_view)::bigint AS mobile_conversion_installs_post_view,
        sum(s.mobile_conversion_installs_post_engagement)::bigint AS mobile_conversion_installs_post_engagement,
        sum(s.mobile_conversion_installs_assisted)::bigint AS mobile_conversion_installs_assisted,
        sum(s.mobile_conversion_installs_order_quantity)::bigint AS mobile_conversion_installs_order_quantity,
        sum(s.mobile_conversion_installs_sale_amount)::bigint AS mobile_conversion_installs_sale_amount,
        sum(s.mobile_conversion_purchases_post_view)::bigint AS mobile_conversion_purchases_post_view,
        sum(s.mobile_conversion_purchases_post_engagement)::bigint AS mobile_conversion_purchases_post_engagement,
        sum(s.mobile_conversion_purchases_assisted)::bigint AS mobile_conversion_purchases_assisted,
        sum(s.mobile_conversion_purchases_order_quantity)::bigint AS mobile_conversion_purchases_order_quantity,
        sum(s.mobile_conversion_purchases_sale_amount)::bigint AS mobile_conversion_purchases_sale_amount,
        sum(s.mobile_conversion_sign_ups_post_view)::bigint AS mobile_conversion_sign_ups_post_view,
        sum(s.mobile_conversion_sign_ups_post_engagement)::bigint AS mobile_conversion_sign_ups_post_engagement,
        sum(s.mobile_conversion_sign_ups_assisted)::bigint AS mobile_conversion_sign_ups_assisted,
        sum(s.mobile_conversion_sign_ups_order_quantity)::bigint AS mobile_conversion_sign_ups_order_quantity,
        sum(s.mobile_conversion_sign_ups_sale_amount)::bigint AS mobile_conversion_sign_ups_sale_amount,
        sum(s.mobile_conversion_re_engages_post_view)::bigint AS mobile_conversion_re_engages_post_view,
        sum(s.mobile_conversion_re_engages_post_engagement)::bigint AS mobile_conversion_re_engages_post_engagement,
        sum(s.mobile_conversion_re_engages_assisted)::bigint AS mobile_conversion_re_engages_assisted,
        sum(s.mobile_conversion_re_engages_order_quantity)::bigint AS mobile_conversion_re_engages_order_quantity,
        sum(s.mobile_conversion_re_engages_sale_amount)::bigint AS mobile_conversion_re_engages_sale_amount,
        sum(s.mobile_conversion_add_to_carts_post_view)::bigint AS mobile_conversion_add_to_carts_post_view,
        sum(s.mobile_conversion_add_to_carts_post_engagement)::bigint AS mobile_conversion_add_to_carts_post_engagement,
        sum(s.mobile_conversion_add_to_carts_assisted)::bigint AS mobile_conversion_add_to_carts_assisted,
        sum(s.mobile_conversion_add_to_carts_order_quantity)::bigint AS mobile_conversion_add_to_carts_order_quantity,
        sum(s.mobile_conversion_add_to_carts_sale_amount)::bigint AS mobile_conversion_add_to_carts_sale_amount,
        sum(s.mobile_conversion_checkouts_initiated_post_view)::bigint AS mobile_conversion_checkouts_initiated_post_view,
        sum(s.mobile_conversion_checkouts_initiated_post_engagement)::bigint AS mobile_conversion_checkouts_initiated_post_engagement,
        sum(s.mobile_conversion_checkouts_initiated_assisted)::bigint AS mobile_conversion_checkouts_initiated_assisted,
        sum(s.mobile_conversion_checkouts_initiated_order_quantity)::bigint AS mobile_conversion_checkouts_initiated_order_quantity,
        sum(s.mobile_conversion_checkouts_initiated_sale_amount)::bigint AS mobile_conversion_checkouts_initiated_sale_amount,
        sum(s.mobile_conversion_content_views_post_view)::bigint AS mobile_conversion_content_views_post_view,
        sum(s.mobile_conversion_content_views_post_engagement)::bigint AS mobile_conversion_content_views_post_engagement,
        sum(s.mobile_conversion_content_views_assisted)::bigint AS mobile_conversion_content_views_assisted,
        sum(s.mobile_conversion_content_views_order_quantity)::bigint AS mobile_conversion_content_views_order_quantity,
        sum(s.mobile_conversion_content_views_sale_amount)::bigint AS mobile_conversion_content_views_sale_amount,
        sum(s.mobile_conversion_spent_credits_post_view)::bigint AS mobile_conversion_spent_credits_post_view,
        sum(s.mobile_conversion_spent_credits_post_engagement)::bigint AS mobile_conversion_spent_credits_post_engagement,
        sum(s.mobile_conversion_spent_credits_assisted)::bigint AS mobile_conversion_spent_credits_assisted,
        sum(s.mobile_conversion_spent_credits_order_quantity)::bigint AS mobile_conversion_spent_credits_order_quantity,
        sum(s.mobile_conversion_spent_credits_sale_amount)::bigint AS mobile_conversion_spent_credits_sale_amount,
        sum(s.mobile_conversion_lifetime_value_purchases_post_view)::bigint AS mobile_conversion_lifetime_value_purchases_post_view,
        sum(s.mobile_conversion_lifetime_value_purchases_post_engagement)::bigint AS mobile_conversion_lifetime_value_purchases_post_engagement,
        sum(s.mobile_conversion_lifetime_value_purchases_assisted)::bigint AS mobile_conversion_lifetime_value_purchases_assisted,
        sum(s.mobile_conversion_lifetime_value_purchases_order_quantity)::bigint AS mobile_conversion_lifetime_value_purchases_order_quantity,
        sum(s.mobile_conversion_lifetime_value_purchases_sale_amount)::bigint AS mobile_conversion_lifetime_value_purchases_sale_amount,
        sum(s.mobile_conversion_lifetime_value_sign_ups_post_view)::bigint AS mobile_conversion_lifetime_value_sign_ups_post_view,
        sum(s.mobile_conversion_lifetime_value_sign_ups_post_engagement)::bigint AS mobile_conversion_lifetime_value_sign_ups_post_engagement,
        sum(s.mobile_conversion_lifetime_value_sign_ups_assisted)::bigint AS mobile_conversion_lifetime_value_sign_ups_assisted,
        sum(s.mobile_conversion_lifetime_value_sign_ups_order_quantity)::bigint AS mobile_conversion_lifetime_value_sign_ups_order_quantity,
        sum(s.mobile_conversion_lifetime_value_sign_ups_sale_amount)::bigint AS mobile_conversion_lifetime_value_sign_ups_sale_amount,
        sum(s.mobile_conversion_lifetime_value_spent_credits_post_view)::bigint AS mobile_conversion_lifetime_value_spent_credits_post_view,
        sum(s.mobile_conversion_lifetime_value_spent_credits_post_engagement)::bigint AS mobile_conversion_lifetime_value_spent_credits_post_engagement,
        sum(s.mobile_conversion_lifetime_value_spent_credits_assisted)::bigint AS mobile_conversion_lifetime_value_spent_credits_assisted,
        sum(s.mobile_conversion_lifetime_value_spent_credits_order_quantity)::bigint AS mobile_conversion_lifetime_value_spent_credits_order_quantity,
        sum(s.mobile_conversion_lifetime_value_spent_credits_sale_amount)::bigint AS mobile_conversion_lifetime_value_spent_credits_sale_amount,
        max(s.fetched_at) AS fetched_at
    FROM ad_stats s
    WHERE s.entity_type = 'CAMPAIGN' AND s.granularity = 'DAY'
    GROUP BY s.bucket_date, s.account_id, s.placement, s.segment_type, s.segment_value) g;

CREATE VIEW report_base_funding_instrument_day AS
SELECT g.bucket_date, g.account_id, g.funding_instrument_id, g.placement, g.segment_type, g.segment_value, g.segment_name,
    ROW(g.impressions, g.engagements, g.clicks, g.url_clicks, round(g.billed_charge_local_micro::numeric / 1000000, 6),
        round(coalesce(g.clicks, 0)::numeric / NULLIF(g.impressions, 0), 6),
        round(coalesce(g.billed_charge_local_micro, 0)::numeric / 1000000 / NULLIF(g.clicks, 0), 6),
        round(coalesce(g.billed_charge_local_micro, 0)::numeric / 1000 / NULLIF(g.impressions, 0), 6),
        g.billed_charge_local_micro, g.reposts, g.replies, g.likes, g.follows, g.card_engagements,
        g.app_clicks, g.qualified_impressions, g.billed_engagements, g.video_total_views, g.video_views_25,
        g.video_views_50, g.video_views_75, g.video_views_100, g.video_cta_clicks, g.video_content_starts,
        g.video_3s100pct_views, g.video_6s_views, g.video_15s_views, g.media_views, g.media_engagements,
        g.conversion_purchases_metric, g.conversion_purchases_order_quantity,
        g.conversion_purchases_sale_amount, g.conversion_purchases_post_engagement,
        g.conversion_purchases_post_view, g.conversion_purchases_assisted, g.conversion_sign_ups_metric,
        g.conversion_sign_ups_order_quantity, g.conversion_sign_ups_sale_amount,
        g.conversion_sign_ups_post_engagement, g.conversion_sign_ups_post_view, g.conversion_sign_ups_assisted,
        g.conversion_site_visits_metric, g.conversion_site_visits_order_quantity,
        g.conversion_site_visits_sale_amount, g.conversion_site_visits_post_engagement,
        g.conversion_site_visits_post_view, g.conversion_site_visits_assisted, g.conversion_downloads_metric,
        g.conversion_downloads_order_quantity, g.conversion_downloads_sale_amount,
        g.conversion_downloads_post_engagement, g.conversion_downloads_post_view,
        g.conversion_downloads_assisted, g.conversion_custom_metric, g.conversion_custom_order_quantity,
        g.conversion_custom_sale_amount, g.conversion_custom_post_engagement, g.conversion_custom_post_view,
        g.conversion_custom_assisted, g.mobile_conversion_installs_post_view,
        g.mobile_conversion_installs_post_engagement, g.mobile_conversion_installs_assisted,
        g.mobile_conversion_installs_order_quantity, g.mobile_conversion_installs_sale_amount,
        g.mobile_conversion_purchases_post_view, g.mobile_conversion_purchases_post_engagement,
        g.mobile_conversion_purchases_assisted, g.mobile_conversion_purchases_order_quantity,
        g.mobile_conversion_purchases_sale_amount, g.mobile_conversion_sign_ups_post_view,
        g.mobile_conversion_sign_ups_post_engagement, g.mobile_conversion_sign_ups_assisted,
        g.mobile_conversion_sign_ups_order_quantity, g.mobile_conversion_sign_ups_sale_amount,
        g.mobile_conversion_re_engages_post_view, g.mobile_conversion_re_engages_post_engagement,
        g.mobile_conversion_re_engages_assisted, g.mobile_conversion_re_engages_order_quantity,
        g.mobile_conversion_re_engages_sale_amount, g.mobile_conversion_add_to_carts_post_view,
        g.mobile_conversion_add_to_carts_post_engagement, g.mobile_conversion_add_to_carts_assisted,
        g.mobile_conversion_add_to_carts_order_quantity, g.mobile_conversion_add_to_carts_sale_amount,
        g.mobile_conversion_checkouts_initiated_post_view,
        g.mobile_conversion_checkouts_initiated_post_engagement,
        g.mobile_conversion_checkouts_initiated_assisted,
        g.mobile_conversion_checkouts_initiated_order_quantity,
        g.mobile_conversion_checkouts_initiated_sale_amount, g.mobile_conversion_content_views_post_view,
        g.mobile_conversion_content_views_post_engagement, g.mobile_conversion_content_views_assisted,
        g.mobile_conversion_content_views_order_quantity, g.mobile_conversion_content_views_sale_amount,
        g.mobile_conversion_spent_credits_post_view, g.mobile_conversion_spent_credits_post_engagement,
        g.mobile_conversion_spent_credits_assisted, g.mobile_conversion_spent_credits_order_quantity,
        g.mobile_conversion_spent_credits_sale_amount, g.mobile_conversion_lifetime_value_purchases_post_view,
        g.mobile_conversion_lifetime_value_purchases_post_engagement,
        g.mobile_conversion_lifetime_value_purchases_assisted,
        g.mobile_conversion_lifetime_value_purchases_order_quantity,
        g.mobile_conversion_lifetime_value_purchases_sale_amount,
        g.mobile_conversion_lifetime_value_sign_ups_post_view,
        g.mobile_conversion_lifetime_value_sign_ups_post_engagement,
        g.mobile_conversion_lifetime_value_sign_ups_assisted,
        g.mobile_conversion_lifetime_value_sign_ups_order_quantity,
        g.mobile_conversion_lifetime_value_sign_ups_sale_amount,
        g.mobile_conversion_lifetime_value_spent_credits_post_view,
        g.mobile_conversion_lifetime_value_spent_credits_post_engagement,
        g.mobile_conversion_lifetime_value_spent_credits_assisted,
        g.mobile_conversion_lifetime_value_spent_credits_order_quantity,
        g.mobile_conversion_lifetime_value_spent_credits_sale_amount)::report_metrics AS m,
    g.fetched_at
FROM (
    SELECT s.bucket_date, s.account_id, c.funding_instrument_id, s.placement, s.segment_type, s.segment_value,
        max(s.segment_name) AS segment_name, sum(s.impressions)::bigint AS impressions,
        sum(s.engagements)::bigint AS engagements, sum(s.clicks)::bigint AS clicks,
        sum(s.url_clicks)::bigint AS url_clicks,
        sum(s.billed_charge_local_micro)::bigint AS billed_charge_local_micro,
        sum(s.reposts)::bigint AS reposts, sum(s.replies)::bigint AS replies, sum(s.likes)::bigint AS likes,
        sum(s.follows)::bigint AS follows, sum(s.card_engagements)::bigint AS card_engagements,
        sum(s.app_clicks)::bigint AS app_clicks, sum(s.qualified_impressions)::bigint AS qualified_impressions,
        sum(s.billed_engagements)::bigint AS billed_engagements,
        sum(s.video_total_views)::bigint AS video_total_views, sum(s.video_views_25)::bigint AS video_views_25,
        sum(s.video_views_50)::bigint AS video_views_50, sum(s.video_views_75)::bigint AS video_views_75,
        sum(s.video_views_100)::bigint AS video_views_100, sum(s.video_cta_clicks)::bigint AS video_cta_clicks,
        sum(s.video_content_starts)::bigint AS video_content_starts,
        sum(s.video_3s100pct_views)::bigint AS video_3s100pct_views,
        sum(s.video_6s_views)::bigint AS video_6s_views, sum(s.video_15s_views)::bigint AS video_15s_views,
        sum(s.media_views)::bigint AS media_views, sum(s.media_engagements)::bigint AS media_engagements,
        sum(s.conversion_purchases_metric)::bigint AS conversion_purchases_metric,
        sum(s.conversion_purchases_order_quantity)::bigint AS conversion_purchases_order_quantity,
        sum(s.conversion_purchases_sale_amount)::bigint AS conversion_purchases_sale_amount,
        sum(s.conversion_purchases_post_engagement)::bigint AS conversion_purchases_post_engagement,
        sum(s.conversion_purchases_post_view)::bigint AS conversion_purchases_post_view,
        sum(s.conversion_purchases_assisted)::bigint AS conversion_purchases_assisted,
        sum(s.conversion_sign_ups_metric)::bigint AS conversion_sign_ups_metric,
        sum(s.conversion_sign_ups_order_quantity)::bigint AS conversion_sign_ups_order_quantity,
        sum(s.conversion_sign_ups_sale_amount)::bigint AS conversion_sign_ups_sale_amount,
        sum(s.conversion_sign_ups_post_engagement)::bigint AS conversion_sign_ups_post_engagement,
        sum(s.conversion_sign_ups_post_view)::bigint AS conversion_sign_ups_post_view,
        sum(s.conversion_sign_ups_assisted)::bigint AS conversion_sign_ups_assisted,
        sum(s.conversion_site_visits_metric)::bigint AS conversion_site_visits_metric,
        sum(s.conversion_site_visits_order_quantity)::bigint AS conversion_site_visits_order_quantity,
        sum(s.conversion_site_visits_sale_amount)::bigint AS conversion_site_visits_sale_amount,
        sum(s.conversion_site_visits_post_engagement)::bigint AS conversion_site_visits_post_engagement,
        sum(s.conversion_site_visits_post_view)::bigint AS conversion_site_visits_post_view,
        sum(s.conversion_site_visits_assisted)::bigint AS conversion_site_visits_assisted,
        sum(s.conversion_downloads_metric)::bigint AS conversion_downloads_metric,
        sum(s.conversion_downloads_order_quantity)::bigint AS conversion_downloads_order_quantity,
        sum(s.conversion_downloads_sale_amount)::bigint AS conversion_downloads_sale_amount,
        sum(s.conversion_downloads_post_engagement)::bigint AS conversion_downloads_post_engagement,
        sum(s.conversion_downloads_post_view)::bigint AS conversion_downloads_post_view,
        sum(s.conversion_downloads_assisted)::bigint AS conversion_downloads_assisted,
        sum(s.conversion_custom_metric)::bigint AS conversion_custom_metric,
        sum(s.conversion_custom_order_quantity)::bigint AS conversion_custom_order_quantity,
        sum(s.conversion_custom_sale_amount)::bigint AS conversion_custom_sale_amount,
        sum(s.conversion_custom_post_engagement)::bigint AS conversion_custom_post_engagement,
        sum(s.conversion_custom_post_view)::bigint AS conversion_custom_post_view,
        sum(s.conversion_custom_assisted)::bigint AS conversion_custom_assisted,
        sum(s.mobile_conversion_installs_post_view)::bigint AS mobile_conversion_installs_post_view,
        sum(s.mobile_conversion_installs_post_engagement)::bigint AS mobile_conversion_installs_post_engagement,
        sum(s.mobile_conversion_installs_assisted)::bigint AS mobile_conversion_installs_assisted,
        sum(s.mobile_conversion_installs_order_quantity)::bigint AS mobile_conversion_installs_order_quantity,
        sum(s.mobile_conversion_installs_sale_amount)::bigint AS mobile_conversion_installs_sale_amount,
        sum(s.mobile_conversion_purchases_post_view)::bigint AS mobile_conversion_purchases_post_view,
        sum(s.mobile_conversion_purchases_post_engagement)::bigint AS mobile_conversion_purchases_post_engagement,
        sum(s.mobile_conversion_purchases_assisted)::bigint AS mobile_conversion_purchases_assisted,
        sum(s.mobile_conversion_purchases_order_quantity)::bigint AS mobile_conversion_purchases_order_quantity,
        sum(s.mobile_conversion_purchases_sale_amount)::bigint AS mobile_conversion_purchases_sale_amount,
        sum(s.mobile_conversion_sign_ups_post_view)::bigint AS mobile_conversion_sign_ups_post_view,
        sum(s.mobile_conversion_sign_ups_post_engagement)::bigint AS mobile_conversion_sign_ups_post_engagement,
        sum(s.mobile_conversion_sign_ups_assisted)::bigint AS mobile_conversion_sign_ups_assisted,
        sum(s.mobile_conversion_sign_ups_order_quantity)::bigint AS mobile_conversion_sign_ups_order_quantity,
        sum(s.mobile_conversion_sign_ups_sale_amount)::bigint AS mobile_conversion_sign_ups_sale_amount,
        sum(s.mobile_conversion_re_engages_post_view)::bigint AS mobile_conversion_re_engages_post_view,
        sum(s.mobile_conversion_re_engages_post_engagement)::bigint AS mobile_conversion_re_engages_post_engagement,
        sum(s.mobile_conversion_re_engages_assisted)::bigint AS mobile_conversion_re_engages_assisted,
        sum(s.mobile_conversion_re_engages_order_quantity)::bigint AS mobile_conversion_re_engages_order_quantity,
        sum(s.mobile_conversion_re_engages_sale_amount)::bigint AS mobile_conversion_re_engages_sale_amount,
        sum(s.mobile_conversion_add_to_carts_post_view)::bigint AS mobile_conversion_add_to_carts_post_view,
        sum(s.mobile_conversion_add_to_carts_post_engagement)::bigint AS mobile_conversion_add_to_carts_post_engagement,
        sum(s.mobile_conversion_add_to_carts_assisted)::bigint AS mobile_conversion_add_to_carts_assisted,
        sum(s.mobile_conversion_add_to_carts_order_quantity)::bigint AS mobile_conversion_add_to_carts_order_quantity,
        sum(s.mobile_conversion_add_to_carts_sale_amount)::bigint AS mobile_conversion_add_to_carts_sale_amount,
        sum(s.mobile_conversion_checkouts_initiated_post_view)::bigint AS mobile_conversion_checkouts_initiated_post_view,
        sum(s.mobile_conversion_checkouts_initiated_post_engagement)::bigint AS mobile_conversion_checkouts_initiated_post_engagement,
        sum(s.mobile_conversion_checkouts_initiated_assisted)::bigint AS mobile_conversion_checkouts_initiated_assisted,
        sum(s.mobile_conversion_checkouts_initiated_order_quantity)::bigint AS mobile_conversion_checkouts_initiated_order_quantity,
        sum(s.mobile_conversion_checkouts_initiated_sale_amount)::bigint AS mobile_conversion_checkouts_initiated_sale_amount,
        sum(s.mobile_conversion_content_views_post_view)::bigint AS mobile_conversion_content_views_post_view,
        sum(s.mobile_conversion_content_views_post_engagement)::bigint AS mobile_conversion_content_views_post_engagement,
        sum(s.mobile_conversion_content_views_assisted)::bigint AS mobile_conversion_content_views_assisted,
        sum(s.mobile_conversion_content_views_order_quantity)::bigint AS mobile_conversion_content_views_order_quantity,
        sum(s.mobile_conversion_content_views_sale_amount)::bigint AS mobile_conversion_content_views_sale_amount,
        sum(s.mobile_conversion_spent_credits_post_view)::bigint AS mobile_conversion_spent_credits_post_view,
        sum(s.mobile_conversion_spent_credits_post_engagement)::bigint AS mobile_conversion_spent_credits_post_engagement,
        sum(s.mobile_conversion_spent_credits_assisted)::bigint AS mobile_conversion_spent_credits_assisted,
        sum(s.mobile_conversion_spent_credits_order_quantity)::bigint AS mobile_conversion_spent_credits_order_quantity,
        sum(s.mobile_conversion_spent_credits_sale_amount)::bigint AS mobile_conversion_spent_credits_sale_amount,
        sum(s.mobile_conversion_lifetime_value_purchases_post_view)::bigint AS mobile_conversion_lifetime_value_purchases_post_view,
        sum(s.mobile_conversion_lifetime_value_purchases_post_engagement)::bigint AS mobile_conversion_lifetime_value_purchases_post_engagement,
        sum(s.mobile_conversion_lifetime_value_purchases_assisted)::bigint AS mobile_conversion_lifetime_value_purchases_assisted,
        sum(s.mobile_conversion_lifetime_value_purchases_order_quantity)::bigint AS mobile_conversion_lifetime_value_purchases_order_quantity,
        sum(s.mobile_conversion_lifetime_value_purchases_sale_amount)::bigint AS mobile_conversion_lifetime_value_purchases_sale_amount,
        sum(s.mobile_conversion_lifetime_value_sign_ups_post_view)::bigint AS mobile_conversion_lifetime_value_sign_ups_post_view,
        sum(s.mobile_conversion_lifetime_value_sign_ups_post_engagement)::bigint AS mobile_conversion_lifetime_value_sign_ups_post_engagement,
        sum(s.mobile_conversion_lifetime_value_sign_ups_assisted)::bigint AS mobile_conversion_lifetime_value_sign_ups_assisted,
        sum(s.mobile_conversion_lifetime_value_sign_ups_order_quantity)::bigint AS mobile_conversion_lifetime_value_sign_ups_order_quantity,
        sum(s.mobile_conversion_lifetime_value_sign_ups_sale_amount)::bigint AS mobile_conversion_lifetime_value_sign_ups_sale_amount,
        sum(s.mobile_conversion_lifetime_value_spent_credits_post_view)::bigint AS mobile_conversion_lifetime_value_spent_credits_post_view,
        sum(s.mobile_conversion_lifetime_value_spent_credits_post_engagement)::bigint AS mobile_conversion_lifetime_value_spent_credits_post_engagement,
        sum(s.mobile_conversion_lifetime_value_spent_credits_assisted)::bigint AS mobile_conversion_lifetime_value_spent_credits_assisted,
        sum(s.mobile_conversion_lifetime_value_spent_credits_order_quantity)::bigint AS mobile_conversion_lifetime_value_spent_credits_order_quantity,
        sum(s.mobile_conversion_lifetime_value_spent_credits_sale_amount)::bigint AS mobile_conversion_lifetime_value_spent_credits_sale_amount,
        max(s.fetched_at) AS fetched_at
    FROM ad_stats s
    LEFT JOIN campaigns c ON c.account_id = s.account_id AND c.id = s.entity_id
    WHERE s.entity_type = 'CAMPAIGN' AND s.granularity = 'DAY'
    GROUP BY s.bucket_date, s.account_id, c.funding_instrument_id, s.placement, s.segment_type, s.segment_value) g;

CREATE VIEW report_account_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = '';

CREATE VIEW report_funding_instrument_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = '';

CREATE VIEW report_campaign_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = '';

CREATE VIEW report_line_item_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = '';

CREATE VIEW report_promoted_post_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = '';

CREATE VIEW report_account_by_age_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'AGE';

CREATE VIEW report_account_by_gender_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'GENDER';

CREATE VIEW report_account_by_devices_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'DEVICES';

CREATE VIEW report_account_by_platforms_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'PLATFORMS';

CREATE VIEW report_account_by_locations_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'LOCATIONS';

CREATE VIEW report_account_by_languages_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'LANGUAGES';

CREATE VIEW report_account_by_interests_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'INTERESTS';

CREATE VIEW report_account_by_keywords_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'KEYWORDS';

CREATE VIEW report_account_by_conversion_tags_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'CONVERSION_TAGS';

CREATE VIEW report_account_by_audiences_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'AUDIENCES';

CREATE VIEW report_account_by_regions_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, split_part(b.segment_type, ':', 2) AS country, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'REGIONS';

CREATE VIEW report_account_by_metros_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, split_part(b.segment_type, ':', 2) AS country, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'METROS';

CREATE VIEW report_account_by_postal_codes_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, split_part(b.segment_type, ':', 2) AS country, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'POSTAL_CODES';

CREATE VIEW report_account_by_platform_versions_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name,
    (SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id ORDER BY f.deleted, f.id LIMIT 1) AS currency,
    b.placement, split_part(b.segment_type, ':', 2) AS platform, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_account_day b
LEFT JOIN accounts a ON a.id = b.account_id
WHERE split_part(b.segment_type, ':', 1) = 'PLATFORM_VERSIONS';

CREATE VIEW report_funding_instrument_by_age_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'AGE';

CREATE VIEW report_funding_instrument_by_gender_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'GENDER';

CREATE VIEW report_funding_instrument_by_devices_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'DEVICES';

CREATE VIEW report_funding_instrument_by_platforms_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'PLATFORMS';

CREATE VIEW report_funding_instrument_by_locations_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'LOCATIONS';

CREATE VIEW report_funding_instrument_by_languages_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'LANGUAGES';

CREATE VIEW report_funding_instrument_by_interests_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'INTERESTS';

CREATE VIEW report_funding_instrument_by_keywords_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'KEYWORDS';

CREATE VIEW report_funding_instrument_by_conversion_tags_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'CONVERSION_TAGS';

CREATE VIEW report_funding_instrument_by_audiences_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'AUDIENCES';

CREATE VIEW report_funding_instrument_by_regions_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, split_part(b.segment_type, ':', 2) AS country,
    b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'REGIONS';

CREATE VIEW report_funding_instrument_by_metros_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, split_part(b.segment_type, ':', 2) AS country,
    b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'METROS';

CREATE VIEW report_funding_instrument_by_postal_codes_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, split_part(b.segment_type, ':', 2) AS country,
    b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'POSTAL_CODES';

CREATE VIEW report_funding_instrument_by_platform_versions_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, f.currency, b.funding_instrument_id,
    f.name AS funding_instrument_name, b.placement, split_part(b.segment_type, ':', 2) AS platform,
    b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_funding_instrument_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id
WHERE split_part(b.segment_type, ':', 1) = 'PLATFORM_VERSIONS';

CREATE VIEW report_campaign_by_age_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'AGE';

CREATE VIEW report_campaign_by_gender_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'GENDER';

CREATE VIEW report_campaign_by_devices_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'DEVICES';

CREATE VIEW report_campaign_by_platforms_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'PLATFORMS';

CREATE VIEW report_campaign_by_locations_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'LOCATIONS';

CREATE VIEW report_campaign_by_languages_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'LANGUAGES';

CREATE VIEW report_campaign_by_interests_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'INTERESTS';

CREATE VIEW report_campaign_by_keywords_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'KEYWORDS';

CREATE VIEW report_campaign_by_conversion_tags_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'CONVERSION_TAGS';

CREATE VIEW report_campaign_by_audiences_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'AUDIENCES';

CREATE VIEW report_campaign_by_regions_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, split_part(b.segment_type, ':', 2) AS country, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'REGIONS';

CREATE VIEW report_campaign_by_metros_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, split_part(b.segment_type, ':', 2) AS country, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'METROS';

CREATE VIEW report_campaign_by_postal_codes_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, split_part(b.segment_type, ':', 2) AS country, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'POSTAL_CODES';

CREATE VIEW report_campaign_by_platform_versions_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, c.currency, b.entity_id AS campaign_id,
    c.name AS campaign_name, b.placement, split_part(b.segment_type, ':', 2) AS platform, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id
WHERE b.entity_type = 'CAMPAIGN' AND split_part(b.segment_type, ':', 1) = 'PLATFORM_VERSIONS';

CREATE VIEW report_line_item_by_age_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'AGE';

CREATE VIEW report_line_item_by_gender_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'GENDER';

CREATE VIEW report_line_item_by_devices_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'DEVICES';

CREATE VIEW report_line_item_by_platforms_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'PLATFORMS';

CREATE VIEW report_line_item_by_locations_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'LOCATIONS';

CREATE VIEW report_line_item_by_languages_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'LANGUAGES';

CREATE VIEW report_line_item_by_interests_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'INTERESTS';

CREATE VIEW report_line_item_by_keywords_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'KEYWORDS';

CREATE VIEW report_line_item_by_conversion_tags_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'CONVERSION_TAGS';

CREATE VIEW report_line_item_by_audiences_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement, b.segment_value,
    b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'AUDIENCES';

CREATE VIEW report_line_item_by_regions_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement,
    split_part(b.segment_type, ':', 2) AS country, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'REGIONS';

CREATE VIEW report_line_item_by_metros_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement,
    split_part(b.segment_type, ':', 2) AS country, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'METROS';

CREATE VIEW report_line_item_by_postal_codes_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement,
    split_part(b.segment_type, ':', 2) AS country, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'POSTAL_CODES';

CREATE VIEW report_line_item_by_platform_versions_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS line_item_id,
    li.name AS line_item_name, li.campaign_id, c.name AS campaign_name, b.placement,
    split_part(b.segment_type, ':', 2) AS platform, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'LINE_ITEM' AND split_part(b.segment_type, ':', 1) = 'PLATFORM_VERSIONS';

CREATE VIEW report_promoted_post_by_age_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'AGE';

CREATE VIEW report_promoted_post_by_gender_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'GENDER';

CREATE VIEW report_promoted_post_by_devices_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'DEVICES';

CREATE VIEW report_promoted_post_by_platforms_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'PLATFORMS';

CREATE VIEW report_promoted_post_by_locations_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'LOCATIONS';

CREATE VIEW report_promoted_post_by_languages_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'LANGUAGES';

CREATE VIEW report_promoted_post_by_interests_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'INTERESTS';

CREATE VIEW report_promoted_post_by_keywords_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'KEYWORDS';

CREATE VIEW report_promoted_post_by_conversion_tags_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'CONVERSION_TAGS';

CREATE VIEW report_promoted_post_by_audiences_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'AUDIENCES';

CREATE VIEW report_promoted_post_by_regions_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, split_part(b.segment_type, ':', 2) AS country, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'REGIONS';

CREATE VIEW report_promoted_post_by_metros_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, split_part(b.segment_type, ':', 2) AS country, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'METROS';

CREATE VIEW report_promoted_post_by_postal_codes_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, split_part(b.segment_type, ':', 2) AS country, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'POSTAL_CODES';

CREATE VIEW report_promoted_post_by_platform_versions_daily AS
SELECT b.bucket_date AS date, b.account_id, a.name AS account_name, li.currency, b.entity_id AS promoted_post_id,
    pp.post_id, pp.line_item_id, li.name AS line_item_name, li.campaign_id, c.name AS campaign_name,
    b.placement, split_part(b.segment_type, ':', 2) AS platform, b.segment_value, b.segment_name,
    (b.m).*, b.fetched_at
FROM report_base_day b
LEFT JOIN accounts a ON a.id = b.account_id
LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id
LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id
LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id
WHERE b.entity_type = 'PROMOTED_POST' AND split_part(b.segment_type, ':', 1) = 'PLATFORM_VERSIONS';
