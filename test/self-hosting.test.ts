// The files an operator deploys with: compose.yaml, the Dockerfile and
// .env.example. Docker cannot pull images where the tests run, so these check
// what can be checked without it: the compose file parses and wires health
// checks, the image runs as a non-root user, and every setting is documented.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SETTING_NAMES } from '../src/config.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  build?: string;
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml')) as {
    services: Record<string, Service>;
    volumes: Record<string, unknown>;
  };

  it('runs Switchboard on PostgreSQL and Redis, started once both are healthy', () => {
    const { switchboard, postgres, redis } = compose.services;
    expect(switchboard!.build).toBe('.');
    expect(switchboard!.environment).toMatchObject({
      DATABASE_URL: expect.stringMatching(/^postgres:\/\/switchboard:.*@postgres:5432\/switchboard$/),
      REDIS_URL: 'redis://redis:6379',
      DATA_DIR: '/data',
    });
    expect(switchboard!.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    expect(postgres!.image).toMatch(/^postgres:\d+/);
    expect(redis!.image).toMatch(/^redis:\d+/);
  });

  it("gives every service a health check, Switchboard's on /readyz", () => {
    for (const [name, service] of Object.entries(compose.services))
      expect(service.healthcheck?.test, name).toBeDefined();
    expect(compose.services.switchboard!.healthcheck!.test.join(' ')).toContain('/readyz');
    expect(compose.services.postgres!.healthcheck!.test.join(' ')).toContain('pg_isready');
    expect(compose.services.redis!.healthcheck!.test.join(' ')).toContain('ping');
  });

  it('keeps data in named volumes', () => {
    const named = Object.values(compose.services)
      .flatMap((s) => s.volumes ?? [])
      .map((v) => v.split(':')[0]!);
    expect(named.sort()).toEqual(Object.keys(compose.volumes).sort());
  });
});

describe('the Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile.split('\n').filter((l) => /^[A-Z]+\s/.test(l));

  it('builds in two stages on node 20 with runtime dependencies only', () => {
    expect(instructions.filter((l) => l.startsWith('FROM ')).map((l) => l.split(/\s+/)[1])).toEqual([
      'node:20-slim',
      'node:20-slim',
    ]);
    expect(dockerfile).toContain('npm ci --omit=dev');
  });

  it('runs as the unprivileged node user, checks /readyz, and starts `serve`', () => {
    const users = instructions.filter((l) => l.startsWith('USER '));
    expect(users.at(-1)).toBe('USER node');
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/readyz/);
    expect(instructions.at(-1)).toBe('CMD ["serve"]');
  });

  it('copies everything the server reads at run time', () => {
    for (const dir of ['bin', 'src', 'migrations', 'manifests']) expect(instructions).toContain(`COPY ${dir} ./${dir}`);
  });
});

describe('.env.example', () => {
  it('lists every setting Switchboard reads, each with a comment above it', () => {
    const lines = read('.env.example').split('\n');
    const listed = lines.map((l) => /^([A-Z_]+)=/.exec(l)?.[1]).filter((n): n is string => Boolean(n));
    const missing = SETTING_NAMES.filter((n) => !listed.includes(n));
    expect(missing, 'add these to .env.example with a comment').toEqual([]);
    expect(listed.filter((n) => !SETTING_NAMES.includes(n as never))).toEqual(['POSTGRES_PASSWORD']);
    for (const name of listed) {
      const at = lines.findIndex((l) => l.startsWith(`${name}=`));
      const above = lines
        .slice(0, at)
        .reverse()
        .find((l) => !/^[A-Z_]+=/.test(l));
      expect(above, name).toMatch(/^# /);
    }
  });
});
