CREATE TABLE "email_mails" (
	"workspace_id" uuid NOT NULL,
	"mail_id" text NOT NULL,
	"message_id" uuid,
	"root_mail_id" text NOT NULL,
	"direction" text NOT NULL,
	"parties" jsonb NOT NULL,
	"refs" jsonb NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"details" jsonb NOT NULL,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_mails_workspace_id_mail_id_pk" PRIMARY KEY("workspace_id","mail_id")
);
--> statement-breakpoint
ALTER TABLE "email_mails" ADD CONSTRAINT "email_mails_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_mails" ADD CONSTRAINT "email_mails_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_mails_root_idx" ON "email_mails" USING btree ("workspace_id","root_mail_id","created_at");--> statement-breakpoint
CREATE INDEX "email_mails_message_idx" ON "email_mails" USING btree ("message_id");