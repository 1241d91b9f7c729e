import { LogLevel, webApi, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from 'pino';
import type { SlackSettings } from './settings.ts';

// The Slack SDKs log whole request and response bodies (what people wrote, link URLs) at debug, so nothing below info is taken from them.
const LEVELS: Record<string, LogLevel> = {
  trace: LogLevel.INFO,
  debug: LogLevel.INFO,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
};

/** Bolt's and the Web API client's logger interface over pino, so their logs join ours. */
export function boltLogger(logger: Logger): BoltLogger {
  const log = logger.child({ component: 'slack-sdk' });
  const text = (msg: unknown[]) =>
    msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
  return {
    debug: () => {},
    info: (...msg) => log.info(text(msg)),
    warn: (...msg) => log.warn(text(msg)),
    error: (...msg) => log.error(text(msg)),
    setLevel: () => {},
    getLevel: () => LEVELS[log.level] ?? LogLevel.ERROR,
    setName: () => {},
  };
}

/**
 * Options for every WebClient Switchboard makes: our SLACK_API_URL, and no
 * retries of its own, so a 429 or an outage surfaces at once and the job queue
 * (which survives restarts) owns the retrying.
 */
export function clientOptions(settings: SlackSettings, logger: Logger): webApi.WebClientOptions {
  return {
    ...(settings.apiUrl ? { slackApiUrl: settings.apiUrl } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: settings.timeoutMs,
    logger: boltLogger(logger),
    logLevel: LogLevel.WARN,
  };
}

/** One WebClient per bot token, reused across jobs and events. */
export class SlackClients {
  private readonly byToken = new Map<string, webApi.WebClient>();

  constructor(private readonly options: webApi.WebClientOptions) {}

  for(token: string): webApi.WebClient {
    let client = this.byToken.get(token);
    if (!client) {
      client = new webApi.WebClient(token, this.options);
      this.byToken.set(token, client);
    }
    return client;
  }

  /** A client without a token (oauth.v2.access, which authenticates with the client credentials). */
  anonymous(): webApi.WebClient {
    return new webApi.WebClient(undefined, this.options);
  }
}
