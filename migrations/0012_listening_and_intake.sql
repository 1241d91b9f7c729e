CREATE TABLE "channel_listeners" (
	"workspace_id" uuid NOT NULL,
	"surface" text NOT NULL,
	"channel_id" text NOT NULL,
	"agent_id" uuid NOT NULL,
	"added_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_listeners_workspace_id_surface_channel_id_agent_id_pk" PRIMARY KEY("workspace_id","surface","channel_id","agent_id")
);
--> statement-breakpoint
CREATE TABLE "intake_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"title" text NOT NULL,
	"kind" text NOT NULL,
	"summary" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	"filed_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "intake_notes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"item_id" uuid NOT NULL,
	"author_agent_id" uuid,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "intake_opt_outs" (
	"subject" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "intake_sources" (
	"item_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"surface" text NOT NULL,
	"permalink" text,
	"excerpt" text DEFAULT '' NOT NULL,
	"author_agent_id" uuid,
	"author_person_id" uuid,
	"author_identity_id" uuid,
	"notified_at" timestamp with time zone,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "intake_sources_item_id_message_id_pk" PRIMARY KEY("item_id","message_id")
);
--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "overheard" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "channel_listeners" ADD CONSTRAINT "channel_listeners_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_listeners" ADD CONSTRAINT "channel_listeners_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intake_items" ADD CONSTRAINT "intake_items_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intake_items" ADD CONSTRAINT "intake_items_filed_by_agents_id_fk" FOREIGN KEY ("filed_by") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intake_notes" ADD CONSTRAINT "intake_notes_item_id_intake_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."intake_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intake_sources" ADD CONSTRAINT "intake_sources_item_id_intake_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."intake_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intake_sources" ADD CONSTRAINT "intake_sources_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channel_listeners_agent_idx" ON "channel_listeners" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "intake_items_ws_idx" ON "intake_items" USING btree ("workspace_id","status","created_at");--> statement-breakpoint
CREATE INDEX "intake_notes_item_idx" ON "intake_notes" USING btree ("item_id","created_at");--> statement-breakpoint
CREATE INDEX "intake_sources_msg_idx" ON "intake_sources" USING btree ("workspace_id","message_id");