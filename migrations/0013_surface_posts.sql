CREATE TABLE "surface_posts" (
	"surface" text NOT NULL,
	"key" text NOT NULL,
	"attempts" integer DEFAULT 1 NOT NULL,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "surface_posts_surface_key_pk" PRIMARY KEY("surface","key")
);
--> statement-breakpoint
CREATE INDEX "surface_posts_created_idx" ON "surface_posts" USING btree ("created_at");