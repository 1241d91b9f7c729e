CREATE TABLE "audience_reads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"source" text NOT NULL,
	"source_id" text NOT NULL,
	"label" text NOT NULL,
	"for_conversation_id" uuid,
	"read_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "surface_channel_members" (
	"surface" text NOT NULL,
	"tenant_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"external_user_id" text NOT NULL,
	CONSTRAINT "surface_channel_members_surface_tenant_id_channel_id_external_user_id_pk" PRIMARY KEY("surface","tenant_id","channel_id","external_user_id")
);
--> statement-breakpoint
CREATE TABLE "surface_channels" (
	"surface" text NOT NULL,
	"tenant_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "surface_channels_surface_tenant_id_channel_id_pk" PRIMARY KEY("surface","tenant_id","channel_id")
);
--> statement-breakpoint
ALTER TABLE "audience_reads" ADD CONSTRAINT "audience_reads_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audience_reads" ADD CONSTRAINT "audience_reads_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audience_reads_agent_idx" ON "audience_reads" USING btree ("agent_id","workspace_id","read_at");