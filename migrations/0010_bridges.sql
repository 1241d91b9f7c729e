CREATE TABLE "bridge_messages" (
	"bridge_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"external_id" text,
	"inbound" boolean NOT NULL,
	"post_started_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bridge_messages_bridge_id_message_id_pk" PRIMARY KEY("bridge_id","message_id")
);
--> statement-breakpoint
CREATE TABLE "bridges" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"channel_id" uuid NOT NULL,
	"surface" text NOT NULL,
	"tenant_id" text NOT NULL,
	"external_channel_id" text NOT NULL,
	"external_ref" jsonb NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"allow_private" boolean DEFAULT false NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "message_reactions" (
	"message_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"emoji" text NOT NULL,
	"reactor" text NOT NULL,
	"reactor_name" text DEFAULT '' NOT NULL,
	"surface" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_reactions_message_id_emoji_reactor_pk" PRIMARY KEY("message_id","emoji","reactor")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "edited_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "bridge_messages" ADD CONSTRAINT "bridge_messages_bridge_id_bridges_id_fk" FOREIGN KEY ("bridge_id") REFERENCES "public"."bridges"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bridge_messages" ADD CONSTRAINT "bridge_messages_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bridges" ADD CONSTRAINT "bridges_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bridges" ADD CONSTRAINT "bridges_channel_id_conversations_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bridges" ADD CONSTRAINT "bridges_created_by_people_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."people"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_reactions" ADD CONSTRAINT "message_reactions_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_reactions" ADD CONSTRAINT "message_reactions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bridge_messages_external_uq" ON "bridge_messages" USING btree ("bridge_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bridges_external_uq" ON "bridges" USING btree ("surface","tenant_id","external_channel_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bridges_channel_surface_uq" ON "bridges" USING btree ("channel_id","surface");--> statement-breakpoint
CREATE INDEX "bridges_ws_idx" ON "bridges" USING btree ("workspace_id");