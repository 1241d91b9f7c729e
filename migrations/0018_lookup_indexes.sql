CREATE INDEX "bridge_messages_message_idx" ON "bridge_messages" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "channel_listeners_channel_idx" ON "channel_listeners" USING btree ("surface","channel_id");--> statement-breakpoint
CREATE INDEX "conversation_participants_agent_idx" ON "conversation_participants" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "conversations_parent_idx" ON "conversations" USING btree ("parent_id") WHERE "conversations"."parent_id" is not null;--> statement-breakpoint
CREATE INDEX "documents_ws_identifier_upper_idx" ON "documents" USING btree ("workspace_id",upper("identifier"));--> statement-breakpoint
CREATE INDEX "intake_sources_conv_idx" ON "intake_sources" USING btree ("conversation_id");--> statement-breakpoint
-- Built beside the old index and swapped in last: dropping an index locks its table against reads too, so the drop
-- comes at the end, when the transaction is about to commit, not before the other builds.
CREATE INDEX "deliveries_agent_order_idx" ON "deliveries" USING btree ("agent_id","workspace_id","created_at","message_id");--> statement-breakpoint
DROP INDEX "deliveries_agent_idx";--> statement-breakpoint
ALTER INDEX "deliveries_agent_order_idx" RENAME TO "deliveries_agent_idx";
