ALTER TABLE "tasks" ADD COLUMN "pr_node_id" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "pr_seen_updated_at" text;--> statement-breakpoint
CREATE INDEX "tasks_state_pr_node_idx" ON "tasks" USING btree ("state","pr_node_id");