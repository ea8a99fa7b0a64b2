// Preloaded (`node --import`) into a gateway process by test/lazy-modules.test.ts: records every module
// the process resolves, ES modules and CommonJS alike, and prints the list to stderr when it exits, with
// the list of Node's own modules it loaded.
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
// stderr is a non-blocking pipe: one write of the list (over 100 KB) may take only part of it, or none (EAGAIN).
process.on('exit', () => {
  // Node's own modules load without a resolve: their list is the process's.
  const bytes = Buffer.from(`\nLOADED MODULES ${JSON.stringify([...loaded])}\nNODE MODULES ${JSON.stringify(process.moduleLoadList)}\n`);
  for (let written = 0; written < bytes.length; ) {
    try {
      written += writeSync(2, bytes, written);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
    }
  }
});
