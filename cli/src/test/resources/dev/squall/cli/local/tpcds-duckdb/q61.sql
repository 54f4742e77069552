-- DuckDB's text of TPC-DS Q61 for the end-to-end test: DuckDB divides decimals in DOUBLE; Trino (and Squall)
-- give DECIMAL(p, max(s1, s2)), the quotient rounded half up. half_up_quotient(n, d) (defined by the test)
-- divides unscaled integers so rounded; its operands are scaled so the quotient has the result's scale.
-- TPC-DS Q61: share of promoted Jewelry sales in GMT-5 stores to GMT-5 customers (November 1998)
select promotions, total,
    -- DECIMAL(15,4) / DECIMAL(15,4) is DECIMAL(19,4): unscaled a * 10^4 / unscaled b, rounded half up, then * 100
    half_up_quotient(cast(cast(promotions as decimal(38, 4)) * 100000000 as hugeint),
        cast(cast(total as decimal(38, 4)) * 10000 as hugeint)) * 0.0001 * 100
from (select sum(ss_ext_sales_price) promotions
      from store_sales, store, promotion, date_dim, customer, customer_address, item
      where ss_sold_date_sk = d_date_sk
          and ss_store_sk = s_store_sk
          and ss_promo_sk = p_promo_sk
          and ss_customer_sk = c_customer_sk
          and ca_address_sk = c_current_addr_sk
          and ss_item_sk = i_item_sk
          and ca_gmt_offset = -5
          and i_category = 'Jewelry'
          and (p_channel_dmail = 'Y' or p_channel_email = 'Y' or p_channel_tv = 'Y')
          and s_gmt_offset = -5
          and d_year = 1998
          and d_moy = 11) promotional_sales,
     (select sum(ss_ext_sales_price) total
      from store_sales, store, date_dim, customer, customer_address, item
      where ss_sold_date_sk = d_date_sk
          and ss_store_sk = s_store_sk
          and ss_customer_sk = c_customer_sk
          and ca_address_sk = c_current_addr_sk
          and ss_item_sk = i_item_sk
          and ca_gmt_offset = -5
          and i_category = 'Jewelry'
          and s_gmt_offset = -5
          and d_year = 1998
          and d_moy = 11) all_sales
order by promotions, total
limit 100
