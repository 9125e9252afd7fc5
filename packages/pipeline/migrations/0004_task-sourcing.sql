ALTER TABLE "tasks" ADD COLUMN "sourced_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "cutoffs_verified" jsonb;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_cutoffs_verified_is_array" CHECK (jsonb_typeof("tasks"."cutoffs_verified") = 'array');