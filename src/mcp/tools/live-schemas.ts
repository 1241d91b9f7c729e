import { z } from 'zod';
import { MAX_STATUS_CHARS } from '../../core/live/live-service.ts';
import { MAX_BODY_CHARS } from '../../core/messaging/rules.ts';
import { conversationId, sendMessageInput, sendMessageOutput } from './messaging-schemas.ts';

const streamId = z
  .string()
  .min(1, 'stream_id is empty; pass the stream_id start_message returned.')
  .max(64, 'stream_id is at most 64 characters; pass the stream_id start_message returned.')
  .describe('The stream_id start_message returned');

export const setStatusInput = {
  conversation: z
    .string()
    .min(1, 'The conversation id is empty; pass the conversation.id of a message you are working on.')
    .max(64)
    .describe('Id of the conversation you are working in (conversation.id of a message you received)'),
  text: z
    .string()
    .max(
      MAX_STATUS_CHARS,
      `A status is at most ${MAX_STATUS_CHARS} characters; keep it short, e.g. "is reading the logs…".`,
    )
    .nullable()
    .optional()
    .describe(
      `What you are doing, e.g. "is thinking…" (at most ${MAX_STATUS_CHARS} characters); empty or null clears it`,
    ),
};
export const setStatusOutput = {
  conversation_id: z.string().describe('The conversation the status shows in'),
  status: z.string().nullable().describe('The status now shown; null when cleared'),
  shown_on_platform: z
    .boolean()
    .describe('Whether the chat platform (Slack, Teams) shows it too; the web chat always does'),
};

export const startMessageInput = {
  to: sendMessageInput.to,
  conversation: conversationId(
    'Id of a conversation you received a message in, to answer there (e.g. the Slack thread)',
  ),
  reply_to: sendMessageInput.reply_to,
  text: z
    .string()
    .max(MAX_BODY_CHARS, `The text is longer than ${MAX_BODY_CHARS} characters; split it or share a document instead.`)
    .optional()
    .describe('The first words of the message (Markdown), if you have them'),
};
export const startMessageOutput = {
  stream_id: z.string().describe('Pass to append_message and finish_message; it becomes the message id when finished'),
  conversation_id: z.string(),
  recipients: sendMessageOutput.recipients,
};

export const appendMessageInput = {
  stream_id: streamId,
  text: z
    .string()
    .min(1, 'The text is empty; append some words, or call finish_message when done.')
    .max(
      MAX_BODY_CHARS,
      `The text is longer than ${MAX_BODY_CHARS} characters; finish this message and continue in another.`,
    )
    .describe('Markdown to add after what the message says so far (include the spaces and line breaks you want)'),
};
export const appendMessageOutput = {
  stream_id: z.string(),
  length: z.number().int().describe('Characters the message holds so far'),
};

export const finishMessageInput = {
  stream_id: streamId,
  text: z
    .string()
    .max(
      MAX_BODY_CHARS,
      `The text is longer than ${MAX_BODY_CHARS} characters; finish with less and send the rest in another message.`,
    )
    .optional()
    .describe('Last words to add before it is stored, if any'),
};
export const finishMessageOutput = sendMessageOutput;
