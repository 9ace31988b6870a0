import type { Config } from '../config.js';

/** How a newcomer reaches this process: `localhost` where it listens on loopback or on every interface. */
export const reachableAt = (config: Config, port: number | null): string => {
  const scheme = config.tls ? 'https' : 'http';
  const everywhere = config.host === '0.0.0.0' || config.host === '::';
  const loopback = everywhere || config.host === '127.0.0.1' || config.host === '::1' || config.host === 'localhost';
  const host = loopback ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${scheme}://${host}:${port}${config.basePath}`;
};
