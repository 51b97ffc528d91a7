-- TPC-H Q11 (important stock identification); validation parameters: NATION = GERMANY,
-- FRACTION = 0.0001 (the specification's value at SF 1: FRACTION = 0.0001 / SF; bench/run.sh
-- replaces the literal marked FRACTION for other scale factors)
-- (ps_partkey added to ORDER BY as a tie breaker)
select
	ps_partkey,
	sum(ps_supplycost * ps_availqty) as value
from
	partsupp,
	supplier,
	nation
where
	ps_suppkey = s_suppkey
	and s_nationkey = n_nationkey
	and n_name = 'GERMANY'
group by
	ps_partkey having
		sum(ps_supplycost * ps_availqty) > (
			select
				sum(ps_supplycost * ps_availqty) * 0.0000100000 /*FRACTION*/
			from
				partsupp,
				supplier,
				nation
			where
				ps_suppkey = s_suppkey
				and s_nationkey = n_nationkey
				and n_name = 'GERMANY'
		)
order by
	value desc,
	ps_partkey;
