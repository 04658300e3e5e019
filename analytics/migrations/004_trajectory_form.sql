-- The form of the filing each trajectory quarter's balance sheet came from (10-Q, 10-K): a fourth
-- quarter read from an annual report says so (shariah.DescribeTrajectoryPoint). Rows written before
-- this migration have '' (not recorded) and make no claim.
ALTER TABLE {db}.trajectory ADD COLUMN form String DEFAULT '';
