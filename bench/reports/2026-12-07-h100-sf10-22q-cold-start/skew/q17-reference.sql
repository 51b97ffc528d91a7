SET themis.enabled = off;
SET max_parallel_workers_per_gather = 2;
SET work_mem = '2GB';
ANALYZE part; ANALYZE lineitem;
\o /tmp/q17ref.out
select sum(l_extendedprice) / 7.0 as avg_yearly
from lineitem, part,
     (select l_partkey as agg_partkey, 0.2 * avg(l_quantity) as avg_quantity from lineitem group by l_partkey) a
where p_partkey = l_partkey and agg_partkey = l_partkey and p_brand = 'Brand#23' and p_container = 'MED BOX'
  and l_quantity < avg_quantity;
\o
