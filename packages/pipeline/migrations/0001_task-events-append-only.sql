-- task_events is the audit trail of every task: rows are inserted, never changed or removed.
-- Statement-level triggers, so even an UPDATE or DELETE that matches no row is refused, and
-- TRUNCATE (which fires no row triggers) is refused too. SQLSTATE ABP01 = append-only violation.
CREATE FUNCTION "abp_reject_append_only_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'ABP01', HINT = 'Record a correction as a new event instead.';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "task_events_append_only"
  BEFORE UPDATE OR DELETE OR TRUNCATE ON "task_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "abp_reject_append_only_change"();
