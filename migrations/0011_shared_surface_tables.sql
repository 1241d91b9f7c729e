CREATE TABLE "default_agents" (
	"surface" text NOT NULL,
	"tenant_id" text NOT NULL,
	"scope" text NOT NULL,
	"scope_id" text NOT NULL,
	"agent_id" uuid NOT NULL,
	"set_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "default_agents_surface_tenant_id_scope_scope_id_pk" PRIMARY KEY("surface","tenant_id","scope","scope_id")
);
--> statement-breakpoint
CREATE TABLE "surface_tenants" (
	"surface" text NOT NULL,
	"tenant_id" text NOT NULL,
	"workspace_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "surface_tenants_surface_tenant_id_pk" PRIMARY KEY("surface","tenant_id")
);
--> statement-breakpoint
ALTER TABLE "default_agents" ADD CONSTRAINT "default_agents_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "surface_tenants" ADD CONSTRAINT "surface_tenants_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "surface_tenants_ws_idx" ON "surface_tenants" USING btree ("workspace_id");--> statement-breakpoint
-- Existing rows move to the shared tables before the old tables and columns go.
INSERT INTO "surface_tenants" ("surface", "tenant_id", "workspace_id", "created_at", "updated_at")
  SELECT 'slack', "team_id", "workspace_id", "created_at", "updated_at" FROM "slack_installations" WHERE "workspace_id" IS NOT NULL;--> statement-breakpoint
INSERT INTO "surface_tenants" ("surface", "tenant_id", "workspace_id", "created_at", "updated_at")
  SELECT 'teams', "tenant_id", "workspace_id", "created_at", "updated_at" FROM "teams_tenants" WHERE "workspace_id" IS NOT NULL;--> statement-breakpoint
INSERT INTO "default_agents" ("surface", "tenant_id", "scope", "scope_id", "agent_id", "set_by", "updated_at")
  SELECT 'slack', "team_id", "scope", "scope_id", "agent_id", "set_by", "updated_at" FROM "slack_agent_choices";--> statement-breakpoint
INSERT INTO "default_agents" ("surface", "tenant_id", "scope", "scope_id", "agent_id", "set_by", "updated_at")
  SELECT 'teams', "tenant_id", 'user', "aad_object_id", "agent_id", "aad_object_id", "updated_at" FROM "teams_users" WHERE "agent_id" IS NOT NULL;--> statement-breakpoint
DROP TABLE "slack_agent_choices" CASCADE;--> statement-breakpoint
DROP TABLE "teams_tenants" CASCADE;--> statement-breakpoint
ALTER TABLE "slack_installations" DROP CONSTRAINT "slack_installations_workspace_id_workspaces_id_fk";
--> statement-breakpoint
ALTER TABLE "teams_users" DROP CONSTRAINT "teams_users_agent_id_agents_id_fk";
--> statement-breakpoint
DROP INDEX "slack_installations_ws_idx";--> statement-breakpoint
ALTER TABLE "slack_installations" DROP COLUMN "workspace_id";--> statement-breakpoint
ALTER TABLE "teams_users" DROP COLUMN "agent_id";