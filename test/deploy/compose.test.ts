// The compose files: one process (compose.yaml), and several behind a proxy
// (deploy/compose.replicas.yaml over it), as a reader would run them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');
// Compose's `!reset` drops what the base file set (ports, volumes): read here as "nothing".
const reset = { tag: '!reset', collection: 'seq' as const, resolve: () => [] };
const read = (file: string) =>
  parse(readFileSync(path.join(ROOT, file), 'utf8'), { customTags: [reset] }) as { services: Record<string, any> };

describe('the compose files', () => {
  const base = read('compose.yaml');
  const replicas = read('deploy/compose.replicas.yaml');

  it('run several replicas behind one proxy, which alone publishes a port', () => {
    expect(Object.keys(replicas.services).sort()).toEqual(['proxy', 'switchboard']);
    expect(replicas.services.switchboard.deploy.replicas).toBeGreaterThan(1);
    expect(replicas.services.switchboard.ports).toEqual([]);
    expect(replicas.services.proxy.ports).toHaveLength(1);
    // The proxy waits for a ready replica: the base file's health check on /readyz.
    expect(replicas.services.proxy.depends_on.switchboard.condition).toBe('service_healthy');
    expect(JSON.stringify(base.services.switchboard.healthcheck.test)).toMatch(/\/readyz/);
    // Every replica shares PostgreSQL and Redis: the embedded defaults are one process only.
    expect(base.services.switchboard.environment).toMatchObject({
      DATABASE_URL: expect.stringMatching(/^postgres:/),
      REDIS_URL: expect.stringMatching(/^redis:/),
    });
  });

  it("proxies to the service's port, unbuffered for event streams, with the file the proxy mounts", () => {
    const [mount] = replicas.services.proxy.volumes as string[];
    const conf = readFileSync(path.join(ROOT, mount.split(':')[0]), 'utf8');
    expect(conf).toMatch(/server switchboard:3000 resolve;/);
    expect(conf).toMatch(/proxy_buffering off;/);
    expect(base.services.switchboard.environment.PORT).toBe('3000');
  });
});
