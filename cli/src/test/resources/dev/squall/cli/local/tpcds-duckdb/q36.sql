-- DuckDB's text of TPC-DS Q36 for the end-to-end test: DuckDB divides decimals in DOUBLE; Trino (and Squall)
-- give DECIMAL(p, max(s1, s2)), the quotient rounded half up. half_up_quotient(n, d) (defined by the test)
-- divides unscaled integers so rounded; its operands are scaled so the quotient has the result's scale.
-- TPC-DS Q36: gross margin by category and class, ranked within the parent level (2001, TN)
select -- DECIMAL(38,2) / DECIMAL(38,2) is DECIMAL(38,2): unscaled a * 10^2 / unscaled b, rounded half up
    half_up_quotient(cast(sum(ss_net_profit) * 10000 as hugeint), cast(sum(ss_ext_sales_price) * 100 as hugeint)) * 0.01 as gross_margin, i_category, i_class,
    grouping(i_category) + grouping(i_class) as lochierarchy,
    rank() over (partition by grouping(i_category) + grouping(i_class),
                     case when grouping(i_class) = 0 then i_category end
                 -- the same quotient, so that margins equal to 2 digits tie in the rank as in Trino
                 order by half_up_quotient(cast(sum(ss_net_profit) * 10000 as hugeint), cast(sum(ss_ext_sales_price) * 100 as hugeint)) * 0.01 asc) as rank_within_parent
from store_sales, date_dim d1, item, store
where d1.d_year = 2001
    and d1.d_date_sk = ss_sold_date_sk
    and i_item_sk = ss_item_sk
    and s_store_sk = ss_store_sk
    and s_state in ('TN', 'TN', 'TN', 'TN', 'TN', 'TN', 'TN', 'TN')
group by rollup (i_category, i_class)
order by lochierarchy desc, case when lochierarchy = 0 then i_category end, rank_within_parent
limit 100
