// The raw start-up floor (baseline B.4 in docs/benchmarks.md): load fastify + better-sqlite3, open a WAL database, create the
// objects table, register /readyz, listen on a port, then close everything and exit. Timed from spawn to exit.
// Usage: node bench/listen-and-exit.js <dbFile> [port]
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');
const fastify = require('fastify');

const [file, port = '0'] = process.argv.slice(2);
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.exec(`CREATE TABLE IF NOT EXISTS objects (cluster TEXT NOT NULL, resource TEXT NOT NULL, namespace TEXT NOT NULL,
  name TEXT NOT NULL, revision INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (cluster, resource, namespace, name))`);
const app = fastify({ logger: false });
app.get('/readyz', async () => 'ok');
await app.listen({ port: Number(port), host: '127.0.0.1' });
await app.close();
db.close();
process.exit(0);
