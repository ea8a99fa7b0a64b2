/** The request's id, for the plugins that log or trace it (decided and echoed by plugins/request-decisions.ts). */
export { requestIdOf } from '../request-id.js';
