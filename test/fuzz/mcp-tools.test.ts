// A seeded fuzz of every MCP tool a connected agent is offered: arguments built
// from each tool's JSON schema, then mutated (wrong types, null, 100 KB strings,
// deep objects, NUL, lone surrogates, unknown and UUID-shaped ids, SQL-ish text,
// extreme numbers, missing and extra fields). Every answer must be a result, a
// refusal with a code other than INTERNAL, or a JSON-RPC invalid-params error;
// every refusal or success of a tool that audits must leave its audit entry.
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { count } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { findUnstorable } from '../../src/core/safe-text.ts';
import type { Database } from '../../src/infra/db/client.ts';
import { audit } from '../../src/infra/db/schema.ts';
import { ERROR_META_KEY } from '../../src/mcp/errors.ts';
import { pgliteDb } from '../support/db.ts';
import { FAMILIES, mutate, prng, Tally, type Family, type Rng } from '../support/fuzz.ts';
import { docsWorld } from '../support/mcp/documents-world.ts';
import { connectInProcess, makeWorld, testApp } from '../support/world.ts';

const SEED = 0x5b0a2d;
/** Inputs this file sends at least (the tools × families grid is repeated until it is reached). */
const AT_LEAST = 2000;

/**
 * The tools that pass runTool an `auditTarget` (src/mcp/tools/*.ts): their refusals are audited by runTool, their
 * successes by the handler. A refusal before the handler (the SDK's schema check, the NUL/surrogate guard) is not.
 */
const AUDITED = new Set([
  'send_message',
  'start_message',
  'finish_message',
  'request_approval',
  'cancel_approval',
  'create_document',
  'update_document',
  'create_collection',
  'update_collection_instructions',
  'update_workspace_instructions',
  'file_intake',
  'update_intake',
]);

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  maxLength?: number;
  minLength?: number;
  format?: string;
  default?: unknown;
}

/** Ids and values seen in earlier answers, by the argument name they go back in as. */
const pools = new Map<string, string[]>();
const remember = (arg: string, v: string) => {
  const pool = pools.get(arg) ?? [];
  if (!pool.includes(v)) pool.push(v);
  if (pool.length > 6) pool.shift();
  pools.set(arg, pool);
};
const HARVEST: Record<string, string> = {
  conversation_id: 'conversation',
  message_id: 'reply_to',
  stream_id: 'stream_id',
  approval_id: 'approval_id',
  identifier: 'document',
  updated_at: 'updated_at',
  key: 'collection',
  address: 'to',
};
function harvest(tool: string, v: unknown, parent = ''): void {
  if (Array.isArray(v)) for (const x of v) harvest(tool, x, parent);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'string' && x) {
        if (HARVEST[k]) remember(HARVEST[k], x);
        if (k === 'id' && parent === 'conversation') remember('conversation', x);
        if (k === 'id' && tool.includes('approval')) remember('approval_id', x);
        if (k === 'id' && tool.includes('intake')) remember('id', x);
      } else harvest(tool, x, k);
    }
  }
}

const TEXT = ['fuzz text', 'Please review PR 12', 'a', 'ünïcødé ✓ \u{1F600}', 'multi\nline'];

/** A value the schema accepts, using ids seen earlier for arguments that take one. */
function sample(r: Rng, s: JsonSchema, name: string): unknown {
  if (s.enum?.length) return r.pick(s.enum);
  const branches = s.anyOf ?? s.oneOf;
  if (branches?.length) return sample(r, r.pick(branches.filter((b) => b.type !== 'null')), name);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string': {
      // Dates at the edges of what ISO 8601 allows, and days a month does not have.
      if (s.format === 'date-time' && r.int(3) === 0)
        return r.pick([
          '0000-01-01T00:00:00Z',
          '9999-12-31T23:59:59.999Z',
          '2024-02-30T00:00:00Z',
          '1970-01-01T00:00:00+14:00',
        ]);
      const pool = pools.get(name);
      if (pool?.length && r.int(5) > 0) return r.pick(pool);
      if (s.format === 'date-time') return new Date(Date.now() - r.int(1e9)).toISOString();
      if (name === 'to') return r.pick(['reviewer', 'builder']);
      const text = r.pick(TEXT);
      return s.maxLength !== undefined ? text.slice(0, s.maxLength) : text;
    }
    case 'integer':
    case 'number': {
      const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
      const hi = Math.min(s.maximum ?? lo + 20, lo + 20);
      return lo + r.int(hi - lo + 1);
    }
    case 'boolean':
      return r.int(2) === 0;
    case 'array':
      return Array.from({ length: 1 + r.int(2) }, () => sample(r, s.items ?? { type: 'string' }, name));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(s.properties ?? {}))
        if (s.required?.includes(k) || r.int(2) === 0) out[k] = sample(r, p, k);
      return out;
    }
    default:
      return 'fuzz';
  }
}

/** What an answer was, and whether it is a defect. */
function classify(outcome: CallToolResult | unknown): { status: string; defect: boolean; reached: boolean } {
  if (outcome instanceof McpError)
    return { status: `jsonrpc ${outcome.code}`, defect: outcome.code !== ErrorCode.InvalidParams, reached: false };
  if (outcome instanceof Error)
    return { status: `thrown ${outcome.message.slice(0, 60)}`, defect: true, reached: false };
  const r = outcome as CallToolResult;
  if (!r.isError) return { status: 'ok', defect: false, reached: true };
  const code = (r._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code;
  if (code) return { status: `refused ${code}`, defect: code === 'INTERNAL', reached: true };
  // send_message and finish_message when every recipient refused: each recipient's reason and rule are in the result.
  if (r.structuredContent && Array.isArray(r.structuredContent.recipients))
    return { status: 'refused by every recipient', defect: false, reached: true };
  const text = (r.content.find((c) => c.type === 'text') as { text?: string } | undefined)?.text ?? '';
  // The SDK's own schema check answers a tool error (1.x: carrying the JSON-RPC invalid-params code in its text).
  if (/^(MCP error -32602: )?(Input validation error|Tool [\s\S]* (not found|disabled)$)/.test(text))
    return { status: 'invalid params (result)', defect: false, reached: false };
  return { status: `untyped error ${text.slice(0, 60)}`, defect: true, reached: false };
}

describe('every MCP tool under seeded hostile arguments', () => {
  let db: Database;
  let app: App;
  const errors: string[] = [];

  beforeAll(async () => {
    db = await pgliteDb.open();
    const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(line) });
    app = await testApp(db, { logger });
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it('answers every input with a result, a refusal other than INTERNAL or invalid params, and loses no audit entry', async () => {
    const r = prng(SEED);
    const w = await makeWorld(app);
    const structured = await docsWorld(app, 'structured');
    const simplified = await docsWorld(app, 'simplified');
    const sessions = [
      ['owner (org admin)', await connectInProcess(app, w.builder.agent, w.ws.slug)],
      ['agent (member)', await connectInProcess(app, w.reviewer.agent, w.ws.slug)],
      ['structured owner', await structured.connect('owner')],
      ['structured viewer', await structured.connect('viewer')],
      ['simplified owner', await simplified.connect('owner')],
      ['simplified writer', await simplified.connect('writer')],
    ] as const;
    const listed = await Promise.all(sessions.map(async ([, c]) => (await c.client.listTools()).tools));

    // Seed the pools with real ids so that mutations of the other arguments reach past the lookups.
    const [builder, reviewer] = [sessions[0][1], sessions[1][1]];
    for (const [c, tool, args] of [
      [builder, 'send_message', { to: 'reviewer', body: 'hello reviewer' }],
      [reviewer, 'check_inbox', {}],
      [builder, 'request_approval', { title: 'Deploy' }],
      [builder, 'start_message', { to: ['reviewer'], text: 'thinking' }],
      [builder, 'file_intake', { title: 'A request', summary: 'Someone asked for something' }],
      [sessions[2][1], 'get_workspace_information', {}],
      [sessions[2][1], 'create_document', { title: 'Doc', summary: 'S', content: 'C' }],
      [sessions[4][1], 'create_document', { title: 'Doc', summary: 'S', content: 'C' }],
    ] as const) {
      const res = await c.call(tool, { ...args });
      if (!res.isError) harvest(tool, res.structuredContent);
    }
    // Whatever create_document needs in a structured workspace, the pool now has a collection key for it.
    const collection = pools.get('collection')?.[0];
    if (collection)
      await sessions[2][1].call('create_document', { collection, title: 'D', summary: 'S', content: 'C' });

    const tally = new Tally();
    const defects: string[] = [];
    const lost: string[] = [];
    const auditRows = async () => Number((await db.db.select({ n: count() }).from(audit))[0]!.n);
    const cells = listed.reduce((n, tools) => n + tools.length, 0) * FAMILIES.length;
    const rounds = Math.ceil(AT_LEAST / cells);

    for (let round = 0; round < rounds; round++) {
      for (const [i, [who, c]] of sessions.entries()) {
        for (const tool of listed[i]!) {
          const schema = tool.inputSchema as JsonSchema;
          const required = schema.required ?? [];
          const keys = Object.keys(schema.properties ?? {});
          for (const family of FAMILIES as readonly Family[]) {
            const base = sample(r, schema, '') as Record<string, unknown>;
            const args = mutate(r, family, base, required, keys.length ? keys : ['unknown_argument']);
            // subscribe waits when nothing is unread: never longer than an instant here.
            if (tool.name === 'subscribe') {
              const t = args.timeout_seconds;
              if (t === undefined || (typeof t === 'number' && t >= 0 && t <= 60)) args.timeout_seconds = 0;
            }
            const before = AUDITED.has(tool.name) ? await auditRows() : 0;
            const outcome = await c.call(tool.name, args).catch((e: unknown) => e);
            const { status, defect, reached } = classify(outcome);
            tally.add(family, status, who);
            const what = () => `${who} ${tool.name} [${family}] ${JSON.stringify(args).slice(0, 300)}`;
            if (defect) defects.push(`${what()}: ${status}`);
            if (!defect && status === 'ok') harvest(tool.name, (outcome as CallToolResult).structuredContent);
            if (AUDITED.has(tool.name) && reached && !findUnstorable(args)) {
              if ((await auditRows()) <= before) lost.push(`${what()}: ${status}`);
            }
          }
        }
      }
    }

    // Malformed tools/call requests: arguments that are not an object, names that are not a tool's.
    const raw = (params: unknown) =>
      builder.client.request({ method: 'tools/call', params: params as never }, CallToolResultSchema).then(
        (x) => x as CallToolResult,
        (e: unknown) => e,
      );
    for (let i = 0; i < 60; i++) {
      const params = r.pick<unknown>([
        { name: 'send_message', arguments: r.pick(['hello', ['body'], 42, null, true]) },
        { name: r.pick(['no_such_tool', 'SEND_MESSAGE', ' ', 'a'.repeat(10_000), 'x\u0000']), arguments: {} },
        { name: r.pick([null, 42, {}, [], '']), arguments: {} },
        { arguments: {} },
        {},
      ]);
      const { status, defect } = classify(await raw(params));
      tally.add('malformed tools/call', status, 'tools/call itself');
      if (defect) defects.push(`tools/call ${JSON.stringify(params).slice(0, 200)}: ${status}`);
    }
    for (const [, c] of sessions) await c.close();

    const auditFailures = errors.filter((l) => l.includes('could not record an audit entry'));
    const internal = Object.entries(tally.statuses)
      .filter(([s]) => s === 'refused INTERNAL')
      .reduce((n, [, k]) => n + k, 0);
    console.log(
      JSON.stringify(
        {
          mcpFuzz: {
            seed: SEED,
            inputs: tally.total,
            perSession: tally.perTarget,
            perFamily: tally.perFamily,
            outcomes: tally.statuses,
            internal,
            defects: defects.length,
            auditEntriesLost: lost.length + auditFailures.length,
          },
        },
        null,
        1,
      ),
    );
    expect(defects).toEqual([]);
    expect(lost).toEqual([]);
    expect(auditFailures).toEqual([]);
    expect(errors.filter((l) => l.includes('MCP tool failed'))).toEqual([]);
    expect(tally.total).toBeGreaterThanOrEqual(AT_LEAST);
  }, 120_000);
});
