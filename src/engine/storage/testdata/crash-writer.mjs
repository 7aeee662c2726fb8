// Child process for the kill -9 durability test (run with `node --import tsx`): commits as fast as it can and
// acknowledges each commit on stdout only after commit() has returned, until the parent kills it.
import { openSqliteStore } from '../sqlite-store.ts';

const store = openSqliteStore(process.argv[2]);
const value = JSON.stringify({ data: 'x'.repeat(900) });
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  const key = `/registry/core/configmaps/crash/default/cm-${i}`;
  const [result] = store.commit([{ type: 'create', key, value }]);
  // A pipe write is synchronous on Linux: once this returns the parent can read the ack.
  process.stdout.write(`ack ${key} ${result.revision}\n`);
}
