import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('configuration', () => {
  it('starts on embedded defaults with nothing set', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      redisUrl: undefined,
    });
    expect(c.dataDir).toMatch(/\.switchboard$/);
  });

  it('derives PUBLIC_URL from PORT and trims a trailing slash', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://sb.example.com/' }).publicUrl).toBe('https://sb.example.com');
  });

  it('lists every bad value with how to fix it', () => {
    const bad = () => loadConfig({ PORT: 'x', DATABASE_URL: 'mysql://a', SWITCHBOARD_SECRET: 'short' });
    expect(bad).toThrow(ConfigError);
    try {
      bad();
    } catch (e) {
      const m = (e as Error).message;
      expect(m).toContain('PORT');
      expect(m).toContain('DATABASE_URL must start with postgres://');
      expect(m).toContain('openssl rand -hex 32');
    }
  });

  it('asks for the signing secret when Slack is configured', () => {
    expect(() => loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1' })).toThrow(/SLACK_SIGNING_SECRET is missing/);
  });

  it('takes an app-level token instead of the signing secret for Socket Mode, and refuses any other kind there', () => {
    const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1-A1-2-abc' });
    expect(config.slack).toMatchObject({ appToken: 'xapp-1-A1-2-abc', signingSecret: undefined });
    expect(() => loadConfig({ SLACK_APP_TOKEN: 'xoxb-1' })).toThrow(/SLACK_APP_TOKEN must be an app-level token/);
  });

  it('needs both halves of the Slack OAuth credentials and a secret to encrypt tokens', () => {
    expect(() => loadConfig({ SLACK_CLIENT_ID: 'a', SLACK_SIGNING_SECRET: 's' })).toThrow(
      /both SLACK_CLIENT_ID and SLACK_CLIENT_SECRET/,
    );
    expect(() => loadConfig({ SLACK_CLIENT_ID: 'a', SLACK_CLIENT_SECRET: 'b', SLACK_SIGNING_SECRET: 's' })).toThrow(
      /SWITCHBOARD_SECRET/,
    );
  });

  it('gives up on jobs meeting outages after JOB_MAX_AGE_MINUTES (30 by default), a whole number from 1', () => {
    expect(loadConfig({}).jobMaxAgeMs).toBe(30 * 60_000);
    expect(loadConfig({ JOB_MAX_AGE_MINUTES: '120' }).jobMaxAgeMs).toBe(120 * 60_000);
    expect(() => loadConfig({ JOB_MAX_AGE_MINUTES: '0' })).toThrow(/JOB_MAX_AGE_MINUTES must be at least 1/);
    expect(() => loadConfig({ JOB_MAX_AGE_MINUTES: '2.5' })).toThrow(
      /JOB_MAX_AGE_MINUTES must be a whole number of minutes/,
    );
  });

  it('refuses a PUBLIC_URL (or SLACK_API_URL) that is not an http(s) address with a host', () => {
    for (const value of ['localhost:3000', 'ftp://sb.example.com', 'switchboard.example.com']) {
      expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(
        '- PUBLIC_URL: PUBLIC_URL must be an http(s) address such as https://switchboard.example.com',
      );
    }
    expect(() => loadConfig({ SLACK_API_URL: 'localhost:4000/api' })).toThrow(
      'SLACK_API_URL must be an http(s) address',
    );
    expect(() => loadConfig({ TEAMS_TERMS_URL: 'https://' })).toThrow('TEAMS_TERMS_URL must be the https address');
    expect(() => loadConfig({ MICROSOFT_LOGIN_URL: 'localhost:5000' })).toThrow(
      'MICROSOFT_LOGIN_URL must be an https URL',
    );
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:3000' }).publicUrl).toBe('http://localhost:3000');
    expect(() => loadConfig({ REDIS_URL: 'localhost:6379' })).toThrow('REDIS_URL must start with redis://');
    expect(() => loadConfig({ DATABASE_URL: 'localhost:5432/sb' })).toThrow('DATABASE_URL must start with postgres://');
  });

  it('accepts the TRUST_PROXY values express does, and refuses any other with what is accepted', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(
      loadConfig({ TRUST_PROXY: 'loopback, linklocal,uniquelocal,10.0.0.0/8,::1,192.168.0.0/255.255.0.0' }).trustProxy,
    ).toBe('loopback, linklocal,uniquelocal,10.0.0.0/8,::1,192.168.0.0/255.255.0.0');
    for (const value of ['maybe', '10.0.0.0/33', 'loopback,nearby', 'yes']) {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
        '- TRUST_PROXY: TRUST_PROXY must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses, subnets and the names loopback, linklocal or uniquelocal',
      );
    }
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: '' }).databaseUrl).toBeUndefined();
  });

  it('takes email settings that hold together, and says what is missing or half-set', () => {
    const email = {
      EMAIL_DOMAIN: 'Agents.Example.com',
      EMAIL_SMTP_PORT: '2525',
      EMAIL_SMTP_URL: 'smtps://user:pass@smtp.example.com:465',
    };
    expect(loadConfig(email).email).toMatchObject({
      domain: 'agents.example.com',
      smtpPort: 2525,
      maxBytes: 10_485_760,
    });
    expect(() => loadConfig({ EMAIL_SMTP_PORT: '25' })).toThrow(/EMAIL_DOMAIN is missing/);
    expect(() => loadConfig({ ...email, EMAIL_SMTP_PORT: '' })).toThrow(/no mail can arrive/);
    expect(() => loadConfig({ ...email, EMAIL_SMTP_URL: '' })).toThrow(/EMAIL_SMTP_URL is missing/);
    expect(() => loadConfig({ ...email, EMAIL_SMTP_TLS_CERT: '/etc/cert.pem' })).toThrow(/both EMAIL_SMTP_TLS_CERT/);
    expect(() => loadConfig({ ...email, EMAIL_DKIM_SELECTOR: 'sb' })).toThrow(/both EMAIL_DKIM_SELECTOR/);
    expect(() => loadConfig({ ...email, EMAIL_SMTP_URL: 'http://smtp.example.com' })).toThrow(
      /smtp:\/\/ or smtps:\/\//,
    );
    expect(() => loadConfig({ ...email, EMAIL_DOMAIN: 'not a domain' })).toThrow(/mail domain such as/);
    expect(() => loadConfig({ ...email, EMAIL_INBOUND_SECRET: 'short' })).toThrow(/openssl rand -hex 24/);
    expect(() => loadConfig({ ...email, EMAIL_MAX_BYTES: '100000000' })).toThrow(/at most 52428800/);
  });
});
