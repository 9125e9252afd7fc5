CREATE TABLE "registry_rotation_batches" (
	"version" text NOT NULL,
	"batch_index" integer NOT NULL,
	"facts" jsonb NOT NULL,
	"missing" jsonb NOT NULL,
	"requests" integer NOT NULL,
	"points" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "registry_rotation_batches_pkey" PRIMARY KEY("version","batch_index"),
	CONSTRAINT "registry_rotation_batches_index_non_negative" CHECK ("registry_rotation_batches"."batch_index" >= 0),
	CONSTRAINT "registry_rotation_batches_cost_non_negative" CHECK ("registry_rotation_batches"."requests" >= 0 and "registry_rotation_batches"."points" >= 0)
);
--> statement-breakpoint
CREATE TABLE "registry_rotations" (
	"version" text PRIMARY KEY NOT NULL,
	"top" integer NOT NULL,
	"batch_size" integer NOT NULL,
	"size" integer NOT NULL,
	"criteria_version" text NOT NULL,
	"sourced_at" text NOT NULL,
	"candidates" jsonb NOT NULL,
	"search_requests" integer NOT NULL,
	"search_points" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "registry_rotations_version_format" CHECK ("registry_rotations"."version" ~ '^abp-registry/[0-9]{4}Q[1-4]$'),
	CONSTRAINT "registry_rotations_sizes_positive" CHECK ("registry_rotations"."top" > 0 and "registry_rotations"."batch_size" > 0 and "registry_rotations"."size" > 0),
	CONSTRAINT "registry_rotations_cost_non_negative" CHECK ("registry_rotations"."search_requests" >= 0 and "registry_rotations"."search_points" >= 0),
	CONSTRAINT "registry_rotations_candidates_is_array" CHECK (jsonb_typeof("registry_rotations"."candidates") = 'array')
);
--> statement-breakpoint
ALTER TABLE "registry_rotation_batches" ADD CONSTRAINT "registry_rotation_batches_version_registry_rotations_version_fk" FOREIGN KEY ("version") REFERENCES "public"."registry_rotations"("version") ON DELETE cascade ON UPDATE no action;