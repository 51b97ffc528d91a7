-- bench/tpch/keys.sql — primary keys, foreign keys (specification clause 1.4.2) and the usual
-- indexes on foreign-key columns, after loading.  load.sh runs the sections marked "-- @pk",
-- "-- @fk" and "-- @index" (one statement a line), the statements of a section in parallel except
-- for @fk (serially).
-- @pk
ALTER TABLE region   ADD CONSTRAINT region_pkey   PRIMARY KEY (r_regionkey);
ALTER TABLE nation   ADD CONSTRAINT nation_pkey   PRIMARY KEY (n_nationkey);
ALTER TABLE part     ADD CONSTRAINT part_pkey     PRIMARY KEY (p_partkey);
ALTER TABLE supplier ADD CONSTRAINT supplier_pkey PRIMARY KEY (s_suppkey);
ALTER TABLE partsupp ADD CONSTRAINT partsupp_pkey PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE customer ADD CONSTRAINT customer_pkey PRIMARY KEY (c_custkey);
ALTER TABLE orders   ADD CONSTRAINT orders_pkey   PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD CONSTRAINT lineitem_pkey PRIMARY KEY (l_orderkey, l_linenumber);
-- @fk
ALTER TABLE nation   ADD CONSTRAINT nation_region_fk     FOREIGN KEY (n_regionkey) REFERENCES region;
ALTER TABLE supplier ADD CONSTRAINT supplier_nation_fk   FOREIGN KEY (s_nationkey) REFERENCES nation;
ALTER TABLE customer ADD CONSTRAINT customer_nation_fk   FOREIGN KEY (c_nationkey) REFERENCES nation;
ALTER TABLE partsupp ADD CONSTRAINT partsupp_part_fk     FOREIGN KEY (ps_partkey) REFERENCES part;
ALTER TABLE partsupp ADD CONSTRAINT partsupp_supplier_fk FOREIGN KEY (ps_suppkey) REFERENCES supplier;
ALTER TABLE orders   ADD CONSTRAINT orders_customer_fk   FOREIGN KEY (o_custkey) REFERENCES customer;
ALTER TABLE lineitem ADD CONSTRAINT lineitem_orders_fk   FOREIGN KEY (l_orderkey) REFERENCES orders;
ALTER TABLE lineitem ADD CONSTRAINT lineitem_partsupp_fk FOREIGN KEY (l_partkey, l_suppkey) REFERENCES partsupp;
-- @index
CREATE INDEX nation_regionkey_idx   ON nation (n_regionkey);
CREATE INDEX supplier_nationkey_idx ON supplier (s_nationkey);
CREATE INDEX customer_nationkey_idx ON customer (c_nationkey);
CREATE INDEX partsupp_suppkey_idx   ON partsupp (ps_suppkey);
CREATE INDEX orders_custkey_idx     ON orders (o_custkey);
CREATE INDEX lineitem_part_supp_idx ON lineitem (l_partkey, l_suppkey);
CREATE INDEX lineitem_suppkey_idx   ON lineitem (l_suppkey);
