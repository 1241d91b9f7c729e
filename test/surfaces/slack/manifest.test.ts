// manifests/slack.yaml is what people paste into Slack: it must subscribe to
// the events the adapter handles, ask for the scopes the OAuth install asks
// for, and point every URL at the routes this server mounts.
// manifests/slack-socket-mode.yaml is the same app for Socket Mode: no URL.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BOT_SCOPES } from '../../../src/surfaces/slack/settings.ts';

const manifest = readFileSync(new URL('../../../manifests/slack.yaml', import.meta.url), 'utf8');
const lines = manifest.split('\n').filter((l) => l.trim() && !l.trimStart().startsWith('#'));

/** The `- item` entries of the list under `key:` (a YAML block sequence). */
function listUnder(key: string): string[] {
  const start = lines.findIndex((l) => l.trim() === `${key}:`);
  if (start < 0) throw new Error(`no ${key}: in the manifest`);
  const indent = lines[start].search(/\S/);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.search(/\S/) <= indent) break;
    const m = /^\s*-\s+(.+)$/.exec(line);
    if (m) items.push(m[1].trim());
  }
  return items;
}

const value = (key: string) =>
  lines
    .map((l) => l.trim().replace(/^- /, ''))
    .filter((l) => l.startsWith(`${key}:`))
    .map((l) => l.slice(key.length + 1).trim());

describe('the Slack app manifest', () => {
  it('subscribes to the events the adapter handles', () => {
    expect(listUnder('bot_events').sort()).toEqual([
      'app_home_opened',
      'app_mention',
      'app_uninstalled',
      'channel_archive',
      'channel_deleted',
      'entity_details_requested',
      'group_archive',
      'group_deleted',
      'link_shared',
      'member_joined_channel',
      'member_left_channel',
      'message.channels',
      'message.groups',
      'message.im',
      'message.mpim',
      'reaction_added',
      'reaction_removed',
      'team_join',
      'tokens_revoked',
    ]);
  });

  it("turns on the app's DM as Slack's agent messaging experience (agent_view, which new apps must use) with the messages tab, and asks for assistant:write to set its statuses and prompts", () => {
    expect(lines.some((l) => l.trim() === 'agent_view:')).toBe(true);
    expect(lines.some((l) => l.trim() === 'assistant_view:')).toBe(false);
    expect(value('agent_description')[0]).toMatch(/agents/);
    // Slack's limit for the description.
    expect(value('agent_description')[0].length).toBeLessThanOrEqual(300);
    expect(value('messages_tab_enabled')).toEqual(['true']);
    expect(value('messages_tab_read_only_enabled')).toEqual(['false']);
    expect(listUnder('bot')).toContain('assistant:write');
  });

  it('asks for the history scope of every message event it subscribes to', () => {
    const needs: Record<string, string> = {
      'message.channels': 'channels:history',
      'message.groups': 'groups:history',
      'message.im': 'im:history',
      'message.mpim': 'mpim:history',
    };
    for (const event of listUnder('bot_events').filter((e) => e.startsWith('message.')))
      expect(BOT_SCOPES).toContain(needs[event]);
  });

  it("asks for the same bot scopes as the OAuth install, posting under agents' names included", () => {
    expect(listUnder('bot').sort()).toEqual([...BOT_SCOPES].sort());
    expect(BOT_SCOPES).toContain('chat:write.customize');
  });

  it("points events, interactivity, the slash command and OAuth at this server's routes on one placeholder host", () => {
    expect(value('request_url')).toEqual([
      'https://switchboard.example.com/slack/events',
      'https://switchboard.example.com/slack/events',
    ]);
    expect(value('url')).toEqual(['https://switchboard.example.com/slack/events']);
    expect(listUnder('redirect_urls')).toEqual(['https://switchboard.example.com/slack/oauth_redirect']);
    expect(value('command')).toEqual(['/switchboard']);
  });

  it("is described in the Slack page's step 1 with every event and bot scope it sets up, and no other", () => {
    const page = readFileSync(new URL('../../../docs/surfaces/slack.md', import.meta.url), 'utf8');
    const step = page.slice(
      page.indexOf('### 1. Create the Slack app from the manifest'),
      page.indexOf('### 2a. Install in one Slack workspace'),
    );
    const part = (from: string, to: string) => step.slice(step.indexOf(from), step.indexOf(to, step.indexOf(from)));
    const named = (text: string) => [...text.matchAll(/`([a-z_.:]+)`/g)].map((m) => m[1]);
    expect(named(part('the events (', '), the bot scopes')).sort()).toEqual(listUnder('bot_events').sort());
    expect(named(part('the bot scopes (', ': `chat:write.customize` lets')).sort()).toEqual(listUnder('bot').sort());
  });

  it('previews links to the placeholder host (the one the sed line replaces), with the scopes link previews need', () => {
    expect(listUnder('unfurl_domains')).toEqual(['switchboard.example.com']);
    expect(BOT_SCOPES).toEqual(expect.arrayContaining(['links:read', 'links:write']));
    expect(manifest).toContain("sed 's#switchboard.example.com#");
  });

  it('turns on interactivity and the App Home tabs', () => {
    expect(value('is_enabled')).toEqual(['true']);
    expect(value('home_tab_enabled')).toEqual(['true']);
    expect(value('messages_tab_enabled')).toEqual(['true']);
    expect(value('socket_mode_enabled')).toEqual(['false']);
  });
});

describe('the Slack app manifest for Socket Mode', () => {
  type Manifest = Record<string, Record<string, unknown>>;
  const http = parse(manifest) as Manifest;
  const socket = parse(
    readFileSync(new URL('../../../manifests/slack-socket-mode.yaml', import.meta.url), 'utf8'),
  ) as Manifest;

  it('turns Socket Mode on and names no URL: no request URL, no command URL, no OAuth redirect', () => {
    expect(socket.settings.socket_mode_enabled).toBe(true);
    expect(JSON.stringify(socket)).not.toMatch(/https?:|request_url|"url"|redirect_urls/);
  });

  it('is otherwise the same app as the HTTP manifest: the same events, scopes, command, tabs and agent view', () => {
    const withoutUrls = (m: Manifest) =>
      JSON.parse(
        JSON.stringify(m, (key, v) =>
          ['request_url', 'url', 'redirect_urls', 'socket_mode_enabled'].includes(key) ? undefined : v,
        ),
      );
    expect(withoutUrls(socket)).toEqual(withoutUrls(http));
  });
});
