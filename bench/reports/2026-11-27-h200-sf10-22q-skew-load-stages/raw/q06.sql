-- JCC-H-style skew variant (dbgen --skew): DATE = 1995-01-01 (the populous orders are dated 1995-01-10 .. 1995-02-07)
-- TPC-H Q6 (forecasting revenue change); validation parameters: DATE = 1994-01-01, DISCOUNT = 0.06,
-- QUANTITY = 24
select
	sum(l_extendedprice * l_discount) as revenue
from
	lineitem
where
	l_shipdate >= date '1995-01-01'
	and l_shipdate < date '1995-01-01' + interval '1' year
	and l_discount between 0.06 - 0.01 and 0.06 + 0.01
	and l_quantity < 24;
