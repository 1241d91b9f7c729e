// Bot Connector failures sorted into what the job queue does about them.
import { RestError } from '@azure/core-rest-pipeline';
import { describe, expect, it } from 'vitest';
import { asJobError, classifyTeamsError, loggable } from '../../../src/surfaces/teams/errors.ts';
import { jobErrorFor as jobError } from '../../../src/core/delivery/failure.ts';
import { PermanentFailure, RetryLater, TransientFailure } from '../../../src/core/errors.ts';

function restError(status: number, body: unknown, headers: Record<string, string> = {}) {
  const request = { headers: { get: () => 'Bearer secret-bot-token' } };
  return Object.assign(new RestError(`HTTP ${status}`, { statusCode: status }), {
    request,
    response: {
      status,
      headers: { get: (n: string) => headers[n.toLowerCase()] },
      bodyAsText: typeof body === 'string' ? body : JSON.stringify(body),
    },
  });
}

const BLOCKED = {
  errorCode: 209,
  message: '{\r\n  "subCode": "MessageWritesBlocked",\r\n  "details": "Thread is blocked from message writes."\r\n}',
};

describe('classifying Bot Connector failures', () => {
  it('waits out a 429 for its Retry-After (with jitter), and backs off without one', () => {
    const throttled = classifyTeamsError(restError(429, { error: { code: 'Throttled' } }, { 'retry-after': '2' }));
    expect(throttled).toMatchObject({ kind: 'rate_limited', afterMs: 2_000 });
    const wait = jobError(throttled, () => 1);
    expect(wait).toBeInstanceOf(RetryLater);
    expect((wait as RetryLater).afterMs).toBeGreaterThan(2_000);
    expect((wait as RetryLater).afterMs).toBeLessThanOrEqual(2_000 + 650);
    const bare = jobError(classifyTeamsError(restError(429, {})));
    expect(bare).not.toBeInstanceOf(RetryLater);
    expect(bare).toBeInstanceOf(TransientFailure);
  });

  it.each([412, 500, 502, 503, 504])("retries %i with the queue's backoff", (status) => {
    const f = classifyTeamsError(restError(status, { error: { code: 'X', message: 'try later' } }));
    expect(f.kind).toBe('transient');
    expect(jobError(f)).toBeInstanceOf(TransientFailure);
  });

  it("gives a job the queue's kind of error for a Bot Connector failure, and leaves other errors as they are", () => {
    expect(asJobError(restError(503, {}))).toBeInstanceOf(TransientFailure);
    expect(asJobError(restError(403, BLOCKED))).toBeInstanceOf(PermanentFailure);
    const bug = new TypeError('x is undefined');
    expect(asJobError(bug)).toBe(bug);
  });

  it('records 403 MessageWritesBlocked and other refusals as permanent', () => {
    expect(classifyTeamsError(restError(403, BLOCKED))).toMatchObject({
      kind: 'permanent',
      code: 'MessageWritesBlocked',
    });
    expect(jobError(classifyTeamsError(restError(403, BLOCKED)))).toBeInstanceOf(PermanentFailure);
    expect(
      classifyTeamsError(restError(404, { error: { code: 'ConversationNotFound', message: 'gone' } })),
    ).toMatchObject({ kind: 'permanent', code: 'HTTP 404', reason: expect.stringContaining('ConversationNotFound') });
  });

  it('says the conversation is gone only for 404 ConversationNotFound and 403 BotNotInConversationRoster', () => {
    expect(
      classifyTeamsError(restError(404, { error: { code: 'ConversationNotFound', message: 'gone' } })),
    ).toMatchObject({ placeGone: true });
    expect(
      classifyTeamsError(restError(403, { error: { code: 'BotNotInConversationRoster', message: 'not a member' } })),
    ).toMatchObject({ placeGone: true });
    expect(classifyTeamsError(restError(403, BLOCKED))).not.toHaveProperty('placeGone');
    expect(
      classifyTeamsError(restError(404, { error: { code: 'NotFound', message: 'no such activity' } })),
    ).not.toHaveProperty('placeGone');
    expect(classifyTeamsError(restError(403, { error: { code: 'ConversationNotFound' } }))).not.toHaveProperty(
      'placeGone',
    );
  });

  it('treats an unreachable connector as transient', () => {
    expect(
      classifyTeamsError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).toMatchObject({ kind: 'transient' });
  });

  it("never logs the request, which carries the bot's token", () => {
    expect(JSON.stringify(loggable(restError(502, { error: { code: 'BadGateway' } })))).not.toContain(
      'secret-bot-token',
    );
  });
});
