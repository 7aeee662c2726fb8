// Child process for the kill -9 durability test (run with `node --import tsx`): commits as fast as it can and
// acknowledges each commit on stdout only once it is durable, until the parent kills it.
import { openSqliteStore } from '../sqlite-store.ts';

const store = openSqliteStore(process.argv[2]);
const value = JSON.stringify({ data: 'x'.repeat(900) });
// Waiting for each ack to be flushed matters: a pipe write that finds the buffer full is queued in memory and
// would only go out when the event loop runs, so a tight loop could commit thousands of writes nobody saw.
const say = (line) => new Promise((resolve) => process.stdout.write(`${line}\n`, resolve));
await say('ready');
const commitOne = (i) => store.commit([{ type: 'create', key: `/registry/core/configmaps/crash/default/cm-${i}`, value }])[0];
for (let i = 0; ; i++) {
  const result = commitOne(i);
  await say(`ack ${result.key} ${result.revision}`);
}
