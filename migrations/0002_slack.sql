CREATE TABLE "external_identities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"surface" text NOT NULL,
	"tenant_id" text NOT NULL,
	"external_user_id" text NOT NULL,
	"person_id" uuid,
	"display_name" text DEFAULT '' NOT NULL,
	"email" text,
	"avatar_url" text,
	"profile" jsonb,
	"profile_fetched_at" timestamp with time zone,
	"linked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "slack_agent_choices" (
	"team_id" text NOT NULL,
	"scope" text NOT NULL,
	"scope_id" text NOT NULL,
	"agent_id" uuid NOT NULL,
	"set_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_agent_choices_team_id_scope_scope_id_pk" PRIMARY KEY("team_id","scope","scope_id")
);
--> statement-breakpoint
CREATE TABLE "slack_installations" (
	"team_id" text PRIMARY KEY NOT NULL,
	"enterprise_id" text,
	"team_name" text DEFAULT '' NOT NULL,
	"workspace_id" uuid,
	"bot_token_sealed" text,
	"bot_user_id" text NOT NULL,
	"bot_id" text NOT NULL,
	"app_id" text,
	"scopes" text DEFAULT '' NOT NULL,
	"installed_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "external_identities" ADD CONSTRAINT "external_identities_person_id_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."people"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_agent_choices" ADD CONSTRAINT "slack_agent_choices_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_installations" ADD CONSTRAINT "slack_installations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "external_identities_uq" ON "external_identities" USING btree ("surface","tenant_id","external_user_id");--> statement-breakpoint
CREATE INDEX "external_identities_person_idx" ON "external_identities" USING btree ("person_id");--> statement-breakpoint
CREATE INDEX "slack_installations_ws_idx" ON "slack_installations" USING btree ("workspace_id");