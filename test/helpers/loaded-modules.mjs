// Preloaded (`node --import`) into a gateway process by test/lazy-modules.test.ts: records every module
// the process resolves, ES modules and CommonJS alike, and prints the list to stderr when it exits.
import { writeSync } from 'node:fs';
import { registerHooks } from 'node:module';

const loaded = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    loaded.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => writeSync(2, `\nLOADED MODULES ${JSON.stringify([...loaded])}\n`));
