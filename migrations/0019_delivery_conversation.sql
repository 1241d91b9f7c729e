-- Each delivery names its message's conversation, so the latest message addressed to an agent in a conversation is
-- found by the deliveries' own index instead of by walking the conversation's messages. Added empty, filled in from
-- the messages, then required: every delivery stored from now on gets it from its message in the same statement.
-- No foreign key to conversations: the message's already ties the delivery to its conversation.
-- Adding the column locks deliveries against reads too until the migration commits, so the fill may as well run
-- with the table's indexes out of the way: each row it rewrites would otherwise be entered in all three again, one
-- at a time (about 30 s per million deliveries here); built again afterwards from the table, they take a few seconds.
ALTER TABLE "deliveries" ADD COLUMN "conversation_id" uuid;--> statement-breakpoint
ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_message_id_agent_id_pk";--> statement-breakpoint
DROP INDEX "deliveries_unread_idx";--> statement-breakpoint
DROP INDEX "deliveries_agent_idx";--> statement-breakpoint
UPDATE "deliveries" d SET "conversation_id" = m."conversation_id" FROM "messages" m WHERE m."id" = d."message_id";--> statement-breakpoint
ALTER TABLE "deliveries" ALTER COLUMN "conversation_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_message_id_agent_id_pk" PRIMARY KEY("message_id","agent_id");--> statement-breakpoint
CREATE INDEX "deliveries_unread_idx" ON "deliveries" USING btree ("agent_id","workspace_id","created_at") WHERE read_at is null;--> statement-breakpoint
CREATE INDEX "deliveries_agent_idx" ON "deliveries" USING btree ("agent_id","workspace_id","created_at","message_id");--> statement-breakpoint
-- Only the addressed deliveries: in a busy channel an agent listens to, nearly all are overheard, and the lookup
-- wants none of those.
CREATE INDEX "deliveries_addressed_idx" ON "deliveries" USING btree ("agent_id","conversation_id") WHERE not overheard;--> statement-breakpoint
-- A conversation's deliveries and their being overheard go together (a busy channel's are nearly all overheard, a
-- direct one's none). Counted apart, the planner would expect a channel's deliveries to be addressed as often as
-- anywhere, so many to an agent that only listens there, and read the channel's messages whole to join them; counted
-- together, it knows how few there are, and looks each one's message up by its key. Counted now, not at the next
-- automatic analyze, since every row has just been rewritten.
CREATE STATISTICS "deliveries_conversation_overheard_stats" (mcv) ON "conversation_id", "overheard" FROM "deliveries";--> statement-breakpoint
ANALYZE "deliveries";
