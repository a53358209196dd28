import { STREAM_DEFAULTS, type StreamSettings } from './streams.ts';
import { DELIVERER_DEFAULTS, type DelivererSettings } from './webhooks/deliverer.ts';

/** The change feed's settings from the environment (the README's settings table), checked before the server starts. */
export interface FeedServerSettings {
  streams: StreamSettings;
  webhooks: DelivererSettings;
}

const STREAM_VARIABLES: Record<Exclude<keyof StreamSettings, 'retryMs'>, string> = {
  heartbeatMs: 'TRADEBOOK_STREAM_HEARTBEAT_MS',
  perKey: 'TRADEBOOK_STREAMS_PER_KEY',
  total: 'TRADEBOOK_STREAMS',
  bufferBytes: 'TRADEBOOK_STREAM_BUFFER_BYTES',
  stallMs: 'TRADEBOOK_STREAM_STALL_MS',
};

/** The settings, or the one line saying which is wrong. An empty variable counts as unset. */
export function readFeedSettings(env: NodeJS.ProcessEnv): { ok: true; settings: FeedServerSettings } | { ok: false; problem: string } {
  const streams = { ...STREAM_DEFAULTS };
  for (const [name, variable] of Object.entries(STREAM_VARIABLES) as [keyof typeof STREAM_VARIABLES, string][]) {
    const text = env[variable] || String(STREAM_DEFAULTS[name]);
    if (!/^[1-9]\d{0,9}$/.test(text)) return { ok: false, problem: `${variable} must be a whole number from 1, got ${JSON.stringify(text)}` };
    streams[name] = Number(text);
  }
  const privateAddresses = env.TRADEBOOK_WEBHOOK_PRIVATE_ADDRESSES || 'off';
  if (privateAddresses !== 'on' && privateAddresses !== 'off') return { ok: false, problem: `TRADEBOOK_WEBHOOK_PRIVATE_ADDRESSES must be on or off, got ${JSON.stringify(privateAddresses)}` };
  return { ok: true, settings: { streams, webhooks: { ...DELIVERER_DEFAULTS, allowPrivate: privateAddresses === 'on' } } };
}
