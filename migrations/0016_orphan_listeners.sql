-- Listening rows of agents that left a workspace before their rows went with the membership (ListeningRepo.removeAgents):
-- the reads have left them out since, but they stayed in the table. A row whose agent has no membership in the row's
-- workspace goes; rows of members without a token or the receive permission stay, as the reads count them again once
-- that is granted again.
DELETE FROM "channel_listeners" AS l
WHERE NOT EXISTS (
  SELECT 1 FROM "agent_memberships" AS m WHERE m."agent_id" = l."agent_id" AND m."workspace_id" = l."workspace_id"
);
