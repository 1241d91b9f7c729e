// The demo's fixed names, apart from the seeding so that the web and the CLI
// can recognise the demo agent without loading the server.

export const DEMO = { org: 'Demo', admin: 'demo-admin', workspace: 'demo', agent: 'helper' } as const;

/** `demo-admin/helper`. */
export const DEMO_AGENT = `${DEMO.admin}/${DEMO.agent}`;

/**
 * The demo agent runs inside the server with a token it renews at every start
 * and never shows, so a hand rotation would silence it until the next start
 * and hand out a token meant for no one: it is refused, with the way forward.
 */
export function demoTokenRule(qualifiedName: string): string | null {
  return qualifiedName === DEMO_AGENT
    ? `${DEMO_AGENT} is the demo agent: the server runs it with a token it renews at every start and keeps to itself, so it cannot be rotated by hand. Create an agent of your own to connect an MCP client.`
    : null;
}
