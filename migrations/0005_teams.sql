CREATE TABLE "teams_conversation_references" (
	"conversation_id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"conversation_type" text NOT NULL,
	"reference" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "teams_tenants" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"workspace_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "teams_users" (
	"tenant_id" text NOT NULL,
	"aad_object_id" text NOT NULL,
	"user_id" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"personal_conversation_id" text,
	"agent_id" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_users_tenant_id_aad_object_id_pk" PRIMARY KEY("tenant_id","aad_object_id")
);
--> statement-breakpoint
ALTER TABLE "teams_tenants" ADD CONSTRAINT "teams_tenants_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_users" ADD CONSTRAINT "teams_users_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "teams_conversation_references_tenant_idx" ON "teams_conversation_references" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "teams_tenants_ws_idx" ON "teams_tenants" USING btree ("workspace_id");