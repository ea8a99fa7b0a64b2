import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Config } from './config.js';
import { traceLogFields } from './trace-hooks.js';

export type { Logger } from 'pino';

/**
 * Structured JSON logs. Credentials never reach a log: anything that looks like one is redacted even
 * if a future log line passes headers along by mistake.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: config.logLevel,
    base: { service: 'gateway' },
    // A line written inside a request's span carries its trace ids (plugins/tracing.ts `traceFields`).
    mixin: traceLogFields,
    redact: {
      paths: [
        'headers.authorization',
        'headers["x-service-client-key"]',
        'headers["x-service-api-key"]',
        '*.headers.authorization',
        '*.headers["x-service-client-key"]',
        '*.headers["x-service-api-key"]',
        'authorization',
        'token',
        'apiKey',
        'clientKey',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
