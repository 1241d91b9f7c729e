// What Teams checks of a bot message's AI features before it takes it: the
// one root message entity (schema.org Message) carrying the AI label
// (`additionalType: ["AIGeneratedContent"]`) and citations, and the feedback
// buttons asked for in channelData. The refusals are the 400s Teams documents
// for them ("Bot messages with AI-generated content").
import type { WireActivity } from './connector.ts';

const MAX_CITATIONS = 20;
const MAX_NAME = 80;
const MAX_ABSTRACT = 160;
const MAX_KEYWORDS = 3;
const MAX_KEYWORD = 28;

const badRequest = (message: string) => ({ status: 400, body: { error: { code: 'BadArgument', message } } });

type Entity = Record<string, unknown>;

/** The root message entities of an activity: schema.org Message entities. */
export const messageEntities = (a: WireActivity): Entity[] =>
  ((a.entities ?? []) as Entity[]).filter((e) => e.type === 'https://schema.org/Message');

/** Why Teams would refuse a citation, or undefined when it takes it. */
function citationProblem(c: Entity, index: number): string | undefined {
  const appearance = c.appearance as Entity | undefined;
  if (!appearance || Object.keys(appearance).length === 0) return 'The `appearance` object is empty.';
  const keywords = appearance.keywords as unknown[] | undefined;
  const fine =
    c['@type'] === 'Claim' &&
    Number.isInteger(c.position) &&
    appearance['@type'] === 'DigitalDocument' &&
    typeof appearance.name === 'string' &&
    appearance.name.length > 0 &&
    appearance.name.length <= MAX_NAME &&
    (appearance.abstract === undefined ||
      (typeof appearance.abstract === 'string' && appearance.abstract.length <= MAX_ABSTRACT)) &&
    (appearance.url === undefined || typeof appearance.url === 'string') &&
    (keywords === undefined ||
      (Array.isArray(keywords) &&
        keywords.length <= MAX_KEYWORDS &&
        keywords.every((k) => typeof k === 'string' && k.length <= MAX_KEYWORD)));
  return fine ? undefined : `Error while parsing citation entity with ID: ${index + 1}.`;
}

/** A refusal for a message whose AI features Teams cannot take; undefined when it may be stored. */
export function checkAiContent(a: WireActivity): { status: number; body: unknown } | undefined {
  const roots = messageEntities(a);
  if (roots.length > 1) return badRequest('Multiple root message entities found under `entities` array.');
  const root = roots[0];
  if (root) {
    const additional = root.additionalType;
    if (
      root['@type'] !== 'Message' ||
      root['@context'] !== 'https://schema.org' ||
      (additional !== undefined && (!Array.isArray(additional) || additional.some((t) => t !== 'AIGeneratedContent')))
    )
      return badRequest('Error parsing message entity from `entities` array.');
    const citations = root.citation;
    if (citations !== undefined) {
      if (!Array.isArray(citations)) return badRequest('Error parsing message entity from `entities` array.');
      if (citations.length > MAX_CITATIONS) return badRequest('Bot message with more than 20 citations.');
      for (const [i, c] of (citations as Entity[]).entries()) {
        const problem = citationProblem(c, i);
        if (problem) return badRequest(problem);
      }
    }
  }
  const loop = ((a.channelData ?? {}) as Entity).feedbackLoop as Entity | undefined;
  if (loop !== undefined && loop.type !== 'default' && loop.type !== 'custom')
    return badRequest('feedbackLoop.type must be "default" or "custom".');
  return undefined;
}
