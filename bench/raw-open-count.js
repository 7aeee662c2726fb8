// The raw baseline of a restart with state: a Node process that opens the same SQLite database kcpt would open
// (WAL, read-only so it never checkpoints or changes it) and counts its rows, then exits. Timed from spawn to exit
// by bench/restart.js. Prints `<object rows> <API objects> <event rows> <workspaces>`.
// Usage: node bench/raw-open-count.js <kcpt.db>
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');

const db = new Database(process.argv[2], { readonly: true });
const objects = db.prepare('SELECT count(*) FROM objects').pluck().get();
// API objects only (kcpt's own index rows live under /kcpt/): a range of the primary key
const apiObjects = db.prepare("SELECT count(*) FROM objects WHERE key >= '/registry/' AND key < '/registry0'").pluck().get();
const events = db.prepare('SELECT count(*) FROM events').pluck().get();
const workspaces = db
  .prepare("SELECT count(*) FROM objects WHERE key >= '/registry/tenancy.kcp.io/workspaces/' AND key < '/registry/tenancy.kcp.io/workspaces0'")
  .pluck()
  .get();
db.close();
process.stdout.write(`${objects} ${apiObjects} ${events} ${workspaces}\n`);
