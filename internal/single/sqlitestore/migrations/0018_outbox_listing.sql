-- People list the outbox newest first (by id: a UUIDv7, minted as the row
-- is written), of one state or of one project, a page after a cursor
-- (`ql notifications list`, the API, the console), as they list Runs:
-- each filter is one range of its index in the listing's order, however
-- many rows the outbox holds, and both together read one of the two ranges.
CREATE INDEX notification_outbox_state_listing ON notification_outbox (state, id);
CREATE INDEX notification_outbox_project_listing ON notification_outbox (project_id, id);
