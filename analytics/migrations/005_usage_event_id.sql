-- Usage rows exactly once (issue 26): every event carries an id the server generates (random, never 0),
-- and the usage spool, after a restart or a failed insert, looks up a batch's rows by it before sending
-- them again. Rows written before this have event_id 0 (they are looked up by request id, as before).
ALTER TABLE {db}.usage_events ADD COLUMN event_id UInt64 DEFAULT 0;
