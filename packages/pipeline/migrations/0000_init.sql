CREATE TYPE "public"."registry_verdict" AS ENUM('included', 'excluded');--> statement-breakpoint
CREATE TYPE "public"."issue_eligibility" AS ENUM('eligible', 'ineligible');--> statement-breakpoint
CREATE TYPE "public"."task_state" AS ENUM('drawn', 'solving', 'tracking', 'freezing', 'scored', 'practice', 'withdrawn', 'rejected');--> statement-breakpoint
CREATE TYPE "public"."signer_kind" AS ENUM('keyed', 'keyless');--> statement-breakpoint
CREATE TABLE "opt_outs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "opt_outs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"repo" text NOT NULL,
	"reason" text NOT NULL,
	"requested_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "opt_outs_repo_format" CHECK ("opt_outs"."repo" ~ '^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$')
);
--> statement-breakpoint
CREATE TABLE "registry_entries" (
	"registry_version" text NOT NULL,
	"repo" text NOT NULL,
	"stars" integer NOT NULL,
	"license_spdx" text,
	"default_branch" text NOT NULL,
	"runner_recipe" jsonb,
	"verdict" "registry_verdict" NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	CONSTRAINT "registry_entries_pkey" PRIMARY KEY("registry_version","repo"),
	CONSTRAINT "registry_entries_repo_format" CHECK ("registry_entries"."repo" ~ '^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$'),
	CONSTRAINT "registry_entries_stars_non_negative" CHECK ("registry_entries"."stars" >= 0),
	CONSTRAINT "registry_entries_included_is_runnable" CHECK ("registry_entries"."verdict" <> 'included' or ("registry_entries"."license_spdx" is not null and "registry_entries"."runner_recipe" is not null)),
	CONSTRAINT "registry_entries_reasons_is_array" CHECK (jsonb_typeof("registry_entries"."reasons") = 'array')
);
--> statement-breakpoint
CREATE TABLE "registry_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"quarter" text NOT NULL,
	"criteria_version" text NOT NULL,
	"sourced_at" timestamp with time zone NOT NULL,
	"digest" text NOT NULL,
	"previous_version" text,
	"document" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "registry_versions_id_is_quarter" CHECK ("registry_versions"."id" = 'abp-registry/' || "registry_versions"."quarter"),
	CONSTRAINT "registry_versions_quarter_format" CHECK ("registry_versions"."quarter" ~ '^[0-9]{4}Q[1-4]$'),
	CONSTRAINT "registry_versions_digest_format" CHECK ("registry_versions"."digest" ~ '^sha256:[0-9a-f]{64}$'),
	CONSTRAINT "registry_versions_previous_is_other" CHECK ("registry_versions"."previous_version" <> "registry_versions"."id")
);
--> statement-breakpoint
CREATE TABLE "backlog_issues" (
	"snapshot_id" text NOT NULL,
	"repo" text NOT NULL,
	"issue_number" integer NOT NULL,
	"title" text NOT NULL,
	"url" text NOT NULL,
	"labels" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"issue_created_at" timestamp with time zone NOT NULL,
	"eligibility" "issue_eligibility" NOT NULL,
	"eligibility_reason" text,
	CONSTRAINT "backlog_issues_pkey" PRIMARY KEY("snapshot_id","repo","issue_number"),
	CONSTRAINT "backlog_issues_repo_format" CHECK ("backlog_issues"."repo" ~ '^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$'),
	CONSTRAINT "backlog_issues_issue_number_positive" CHECK ("backlog_issues"."issue_number" > 0),
	CONSTRAINT "backlog_issues_labels_is_array" CHECK (jsonb_typeof("backlog_issues"."labels") = 'array'),
	CONSTRAINT "backlog_issues_ineligible_has_reason" CHECK ("backlog_issues"."eligibility" <> 'ineligible' or "backlog_issues"."eligibility_reason" is not null)
);
--> statement-breakpoint
CREATE TABLE "backlog_snapshots" (
	"id" text PRIMARY KEY NOT NULL,
	"registry_version" text NOT NULL,
	"digest" text NOT NULL,
	"taken_at" timestamp with time zone NOT NULL,
	"repo_count" integer NOT NULL,
	"issue_count" integer NOT NULL,
	"eligible_issue_count" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "backlog_snapshots_id_registry_version_key" UNIQUE("id","registry_version"),
	CONSTRAINT "backlog_snapshots_digest_format" CHECK ("backlog_snapshots"."digest" ~ '^sha256:[0-9a-f]{64}$'),
	CONSTRAINT "backlog_snapshots_counts_consistent" CHECK ("backlog_snapshots"."repo_count" >= 0 and "backlog_snapshots"."issue_count" >= 0 and "backlog_snapshots"."eligible_issue_count" between 0 and "backlog_snapshots"."issue_count")
);
--> statement-breakpoint
CREATE TABLE "draw_picks" (
	"draw_id" text NOT NULL,
	"position" integer NOT NULL,
	"backlog_snapshot_id" text NOT NULL,
	"repo" text NOT NULL,
	"issue_number" integer NOT NULL,
	CONSTRAINT "draw_picks_pkey" PRIMARY KEY("draw_id","position"),
	CONSTRAINT "draw_picks_draw_issue_key" UNIQUE("draw_id","repo","issue_number"),
	CONSTRAINT "draw_picks_position_non_negative" CHECK ("draw_picks"."position" >= 0),
	CONSTRAINT "draw_picks_repo_format" CHECK ("draw_picks"."repo" ~ '^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$')
);
--> statement-breakpoint
CREATE TABLE "draws" (
	"id" text PRIMARY KEY NOT NULL,
	"registry_version" text NOT NULL,
	"seed" bigint NOT NULL,
	"algorithm" text NOT NULL,
	"backlog_snapshot_id" text NOT NULL,
	"input_digests" jsonb NOT NULL,
	"requested_count" integer NOT NULL,
	"drawn_at" timestamp with time zone NOT NULL,
	"document_digest" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "draws_id_backlog_snapshot_key" UNIQUE("id","backlog_snapshot_id"),
	CONSTRAINT "draws_seed_non_negative" CHECK ("draws"."seed" >= 0),
	CONSTRAINT "draws_requested_count_positive" CHECK ("draws"."requested_count" > 0),
	CONSTRAINT "draws_document_digest_format" CHECK ("draws"."document_digest" ~ '^sha256:[0-9a-f]{64}$'),
	CONSTRAINT "draws_input_digests_is_object" CHECK (jsonb_typeof("draws"."input_digests") = 'object')
);
--> statement-breakpoint
CREATE TABLE "task_events" (
	"task_id" text NOT NULL,
	"seq" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"from_state" "task_state",
	"to_state" "task_state" NOT NULL,
	"cause" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "task_events_pkey" PRIMARY KEY("task_id","seq"),
	CONSTRAINT "task_events_seq_positive" CHECK ("task_events"."seq" >= 1),
	CONSTRAINT "task_events_detail_is_object" CHECK (jsonb_typeof("task_events"."detail") = 'object')
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"draw_id" text NOT NULL,
	"repo" text NOT NULL,
	"issue_number" integer NOT NULL,
	"state" "task_state" DEFAULT 'drawn' NOT NULL,
	"pr_url" text,
	"base_commit" text,
	"merge_commit" text,
	"merged_at" timestamp with time zone,
	"scored_until" timestamp with time zone,
	"bundle_digest" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_draw_pick_key" UNIQUE("draw_id","repo","issue_number"),
	CONSTRAINT "tasks_id_not_empty" CHECK ("tasks"."id" <> ''),
	CONSTRAINT "tasks_repo_format" CHECK ("tasks"."repo" ~ '^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$'),
	CONSTRAINT "tasks_issue_number_positive" CHECK ("tasks"."issue_number" > 0),
	CONSTRAINT "tasks_base_commit_format" CHECK ("tasks"."base_commit" ~ '^[0-9a-f]{40}([0-9a-f]{24})?$'),
	CONSTRAINT "tasks_merge_commit_format" CHECK ("tasks"."merge_commit" ~ '^[0-9a-f]{40}([0-9a-f]{24})?$'),
	CONSTRAINT "tasks_bundle_digest_format" CHECK ("tasks"."bundle_digest" ~ '^sha256:[0-9a-f]{64}$'),
	CONSTRAINT "tasks_scored_after_merge" CHECK ("tasks"."scored_until" > "tasks"."merged_at"),
	CONSTRAINT "tasks_tracking_has_pr" CHECK ("tasks"."state" <> 'tracking' or "tasks"."pr_url" is not null),
	CONSTRAINT "tasks_freezing_has_merge" CHECK ("tasks"."state" <> 'freezing' or ("tasks"."pr_url" is not null and "tasks"."merge_commit" is not null and "tasks"."merged_at" is not null)),
	CONSTRAINT "tasks_frozen_has_bundle" CHECK ("tasks"."state" not in ('scored', 'practice') or ("tasks"."bundle_digest" is not null and "tasks"."base_commit" is not null and "tasks"."merge_commit" is not null and "tasks"."merged_at" is not null and "tasks"."scored_until" is not null))
);
--> statement-breakpoint
CREATE TABLE "bundles" (
	"digest" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"media_type" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"path" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bundles_digest_task_key" UNIQUE("digest","task_id"),
	CONSTRAINT "bundles_digest_format" CHECK ("bundles"."digest" ~ '^sha256:[0-9a-f]{64}$'),
	CONSTRAINT "bundles_size_non_negative" CHECK ("bundles"."size_bytes" >= 0)
);
--> statement-breakpoint
CREATE TABLE "signatures" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "signatures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"bundle_digest" text NOT NULL,
	"signer_kind" "signer_kind" NOT NULL,
	"key_id" text,
	"certificate_identity" text,
	"sigstore_bundle" jsonb NOT NULL,
	"log_index" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "signatures_bundle_signer_key" UNIQUE NULLS NOT DISTINCT("bundle_digest","signer_kind","key_id","certificate_identity"),
	CONSTRAINT "signatures_signer_matches_kind" CHECK (("signatures"."signer_kind" = 'keyed' and "signatures"."key_id" is not null and "signatures"."certificate_identity" is null)
        or ("signatures"."signer_kind" = 'keyless' and "signatures"."certificate_identity" is not null and "signatures"."key_id" is null and "signatures"."log_index" is not null)),
	CONSTRAINT "signatures_log_index_non_negative" CHECK ("signatures"."log_index" >= 0)
);
--> statement-breakpoint
ALTER TABLE "registry_entries" ADD CONSTRAINT "registry_entries_registry_version_registry_versions_id_fk" FOREIGN KEY ("registry_version") REFERENCES "public"."registry_versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registry_versions" ADD CONSTRAINT "registry_versions_previous_version_registry_versions_id_fk" FOREIGN KEY ("previous_version") REFERENCES "public"."registry_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "backlog_issues" ADD CONSTRAINT "backlog_issues_snapshot_id_backlog_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."backlog_snapshots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "backlog_snapshots" ADD CONSTRAINT "backlog_snapshots_registry_version_registry_versions_id_fk" FOREIGN KEY ("registry_version") REFERENCES "public"."registry_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "draw_picks" ADD CONSTRAINT "draw_picks_draw_fk" FOREIGN KEY ("draw_id","backlog_snapshot_id") REFERENCES "public"."draws"("id","backlog_snapshot_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "draw_picks" ADD CONSTRAINT "draw_picks_backlog_issue_fk" FOREIGN KEY ("backlog_snapshot_id","repo","issue_number") REFERENCES "public"."backlog_issues"("snapshot_id","repo","issue_number") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "draws" ADD CONSTRAINT "draws_backlog_snapshot_fk" FOREIGN KEY ("backlog_snapshot_id","registry_version") REFERENCES "public"."backlog_snapshots"("id","registry_version") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_events" ADD CONSTRAINT "task_events_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_draw_pick_fk" FOREIGN KEY ("draw_id","repo","issue_number") REFERENCES "public"."draw_picks"("draw_id","repo","issue_number") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_bundle_fk" FOREIGN KEY ("bundle_digest","id") REFERENCES "public"."bundles"("digest","task_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundles" ADD CONSTRAINT "bundles_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signatures" ADD CONSTRAINT "signatures_bundle_digest_bundles_digest_fk" FOREIGN KEY ("bundle_digest") REFERENCES "public"."bundles"("digest") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "opt_outs_repo_key" ON "opt_outs" USING btree (lower("repo"));--> statement-breakpoint
CREATE INDEX "registry_entries_repo_idx" ON "registry_entries" USING btree ("repo");--> statement-breakpoint
CREATE UNIQUE INDEX "registry_versions_digest_key" ON "registry_versions" USING btree ("digest");--> statement-breakpoint
CREATE UNIQUE INDEX "backlog_snapshots_digest_key" ON "backlog_snapshots" USING btree ("digest");--> statement-breakpoint
CREATE INDEX "backlog_snapshots_registry_version_taken_at_idx" ON "backlog_snapshots" USING btree ("registry_version","taken_at");--> statement-breakpoint
CREATE INDEX "draw_picks_repo_issue_idx" ON "draw_picks" USING btree ("repo","issue_number");--> statement-breakpoint
CREATE UNIQUE INDEX "draws_document_digest_key" ON "draws" USING btree ("document_digest");--> statement-breakpoint
CREATE INDEX "draws_registry_version_drawn_at_idx" ON "draws" USING btree ("registry_version","drawn_at");--> statement-breakpoint
CREATE INDEX "tasks_state_scored_until_idx" ON "tasks" USING btree ("state","scored_until");--> statement-breakpoint
CREATE INDEX "tasks_pr_url_idx" ON "tasks" USING btree ("pr_url");--> statement-breakpoint
CREATE INDEX "bundles_task_id_idx" ON "bundles" USING btree ("task_id");