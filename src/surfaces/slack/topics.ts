// The Slack surface's job topics, each written once: the factory registers
// its handlers under them, and tests look their jobs up by them. Where the
// core writes a surface's topic itself (approval cards, link confirmations),
// the constant is the core's helper applied to 'slack'.
import { approvalShowTopic, approvalUpdateTopic } from '../../core/approvals/approval-service.ts';
import { linkDoneTopic } from '../../core/linking/link-service.ts';

/** Handles one stored Slack request (events, interactivity, slash commands) by replaying it through Bolt. */
export const SLACK_INBOUND = 'inbound.slack';
/** Posts an agent's message into a Slack thread. */
export const SLACK_POST = 'slack.post';
/** Says "Linked as @alice" in the person's DM with the app. */
export const SLACK_LINK_DONE = linkDoneTopic('slack');
/** Posts an approval's card in its Slack thread, or in each approver's DM. */
export const SLACK_APPROVAL_SHOW = approvalShowTopic('slack');
/** Rewrites every shown card of a settled approval. */
export const SLACK_APPROVAL_UPDATE = approvalUpdateTopic('slack');
