import { runDemoAgent } from './agent.ts';
import type { Server } from '../server.ts';
import { DEMO, seedDemo } from './seed.ts';

export { DEMO, seedDemo } from './seed.ts';
export { DEMO_AGENT } from './names.ts';

/**
 * `serve --demo`: seeds the demo (first run), then runs the demo agent in this
 * process as a real MCP client over HTTP against this server. It stops when
 * the server starts stopping.
 */
export async function startDemo(server: Server): Promise<{ signinUrl: string; agentUrl: string }> {
  const { app } = server;
  const seed = await seedDemo(server);
  const agentUrl = `${server.url}/mcp/${DEMO.workspace}`;
  const stop = new AbortController();
  const log = app.logger.child({ component: 'demo-agent' });
  const running = runDemoAgent({
    url: agentUrl,
    token: seed.token,
    signal: stop.signal,
    log: (msg, details) => log.info(details ?? {}, msg),
  }).catch((err) => log.error({ err }, 'the demo agent stopped'));
  app.onDrain.push(() => stop.abort());
  app.onClose.push(() => running);
  return { signinUrl: seed.signinUrl, agentUrl };
}
