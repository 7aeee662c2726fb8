/**
 * Answers wait for the storage transaction they were made in (a store committing each event-loop turn's writes
 * together): nothing read or written in the turn is told to a client before the turn is durable. If the commit
 * fails, the answer becomes a 500 Status: the write it reported is gone.
 */
import type { FastifyReply } from 'fastify';
import { internalError } from '../machinery/status.js';
import type { Store } from '../storage/store.js';

type Done = (err: Error | null, payload?: unknown) => void;

/** An onSend step: passes `payload` on at once when nothing is pending, else once the pending commit settles. */
export function holdForCommit(store: Pick<Store, 'settled'>, reply: FastifyReply, payload: unknown, done: Done, log: (line: string) => void): void {
  const pending = store.settled?.();
  if (!pending) return done(null, payload);
  pending.then(
    () => done(null, payload),
    (err: unknown) => {
      log(`error: a turn's commit failed: ${(err as Error)?.message}`);
      done(null, uncommittedAnswer(reply, err));
    },
  );
}

function uncommittedAnswer(reply: FastifyReply, err: unknown): string {
  reply.code(500).header('content-type', 'application/json');
  reply.removeHeader('content-length');
  reply.removeHeader('warning');
  const message = `the request's storage transaction could not be committed: ${(err as Error)?.message ?? String(err)}`;
  return JSON.stringify(internalError(message).toStatus());
}
