-- Each delivery names its message's conversation and time, so the latest message addressed to an agent in a
-- conversation is the first entry of the deliveries' own index instead of found by walking the conversation's
-- messages. Added empty, filled in from the messages, then required: every delivery stored from now on gets them from
-- its message in the same statement, and nothing changes a message's time once it is stored.
-- No foreign key to conversations: the message's already ties the delivery to its conversation.
-- Adding the columns locks deliveries against reads too until the migration commits, so the fill may as well run
-- with the table's indexes out of the way: each row it rewrites would otherwise be entered in all three again, one
-- at a time (about 30 s per million deliveries here); built again afterwards from the table, they take a few seconds.
ALTER TABLE "deliveries" ADD COLUMN "conversation_id" uuid;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "message_created_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_message_id_agent_id_pk";--> statement-breakpoint
DROP INDEX "deliveries_unread_idx";--> statement-breakpoint
DROP INDEX "deliveries_agent_idx";--> statement-breakpoint
UPDATE "deliveries" d SET "conversation_id" = m."conversation_id", "message_created_at" = m."created_at" FROM "messages" m WHERE m."id" = d."message_id";--> statement-breakpoint
ALTER TABLE "deliveries" ALTER COLUMN "conversation_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "deliveries" ALTER COLUMN "message_created_at" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_message_id_agent_id_pk" PRIMARY KEY("message_id","agent_id");--> statement-breakpoint
CREATE INDEX "deliveries_unread_idx" ON "deliveries" USING btree ("agent_id","workspace_id","created_at") WHERE read_at is null;--> statement-breakpoint
CREATE INDEX "deliveries_agent_idx" ON "deliveries" USING btree ("agent_id","workspace_id","created_at","message_id");--> statement-breakpoint
-- Only the addressed deliveries, newest message first: in a busy channel an agent listens to, nearly all are
-- overheard, and the lookup wants none of those; of the rest it wants the first.
CREATE INDEX "deliveries_addressed_idx" ON "deliveries" USING btree ("agent_id","conversation_id","message_created_at" DESC NULLS FIRST,"created_at" DESC NULLS FIRST) WHERE not overheard;
