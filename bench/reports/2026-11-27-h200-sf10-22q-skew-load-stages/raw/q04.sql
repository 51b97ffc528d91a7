-- JCC-H-style skew variant (dbgen --skew): DATE = 1995-01-01 (the populous orders are dated 1995-01-10 .. 1995-02-07)
-- TPC-H Q4 (order priority checking); validation parameters: DATE = 1993-07-01
select
	o_orderpriority,
	count(*) as order_count
from
	orders
where
	o_orderdate >= date '1995-01-01'
	and o_orderdate < date '1995-01-01' + interval '3' month
	and exists (
		select
			*
		from
			lineitem
		where
			l_orderkey = o_orderkey
			and l_commitdate < l_receiptdate
	)
group by
	o_orderpriority
order by
	o_orderpriority;
