import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';

/**
 * The three parts of rate-limiter-flexible the gateway uses, each from its own module: the package's
 * index loads every limiter it has (Mongo, MySQL, Postgres, DynamoDB, etcd, cluster...), which a process
 * then keeps for its whole life. The heap this saves is in bench/PHASES.md ("Start heap, fourth pass").
 */
const require = createRequire(import.meta.url);
export const RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof Flexible.RateLimiterMemory;
export const RateLimiterRedis = require('rate-limiter-flexible/lib/RateLimiterRedis.js') as typeof Flexible.RateLimiterRedis;
export const RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof Flexible.RateLimiterRes;
export type RateLimiterRes = Flexible.RateLimiterRes;
export type RateLimiterAbstract = Flexible.RateLimiterAbstract;
