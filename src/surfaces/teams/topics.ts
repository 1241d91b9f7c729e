// Teams' surface name and the topics of its jobs, each written once, apart from
// botbuilder: tests and tools import them without loading the SDK. Where the
// core builds a topic itself (approval cards, link confirmations), it is taken
// from the core's helper.
import { approvalShowTopic, approvalUpdateTopic } from '../../core/approvals/approval-service.ts';
import { postChangeTopic } from '../../core/delivery/post-change.ts';
import { linkDoneTopic } from '../../core/linking/link-service.ts';

/** Teams' surface name and its name in sentences, as every port it registers with the core carries them. */
export const TEAMS = { surface: 'teams', label: 'Teams' } as const;

/** The job that handles one stored Teams activity. */
export const TEAMS_INBOUND = `inbound.${TEAMS.surface}`;
/** The job that posts agents' messages into Teams conversations. */
export const TEAMS_POST = `${TEAMS.surface}.post`;
/** The job that follows a web edit or delete of a post to Teams. */
export const TEAMS_POST_CHANGE = postChangeTopic(TEAMS.surface);
/** The job that tells a Teams user their account is linked. */
export const TEAMS_LINK_DONE = linkDoneTopic(TEAMS.surface);
/** The job that shows a new approval's card in Teams. */
export const TEAMS_APPROVAL_SHOW = approvalShowTopic(TEAMS.surface);
/** The job that updates every Teams card of an approval once it is settled. */
export const TEAMS_APPROVAL_UPDATE = approvalUpdateTopic(TEAMS.surface);
